// A small token issuer for the auth benchmarks: an ES256 and an RS256 key, a key set at `/jwks` on
// 127.0.0.1 that counts its fetches, and RFC 9068 access tokens (`typ: at+jwt`) for a given audience.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export type Alg = 'ES256' | 'RS256';

export interface Issuer {
  /** The issuer URL (`iss`); its key set is at `${url}/jwks`. */
  readonly url: string;
  /** Key set fetches so far. */
  fetches(): number;
  /** A one-hour access token for `audience`; `kid` and `key` default to the published key of `alg`. */
  token(alg: Alg, audience: string, kid?: string, key?: Parameters<SignJWT['sign']>[0]): Promise<string>;
  close(): Promise<void>;
}

/**
 * One issuer for every protected server of a run, started on first use. Its listener does not keep the
 * process alive; {@link closeSharedIssuer} closes it.
 */
let shared: Promise<Issuer> | undefined;

export function sharedIssuer(): Promise<Issuer> {
  shared ??= startIssuer({ unref: true });
  return shared;
}

export async function closeSharedIssuer(): Promise<void> {
  const issuer = shared;
  shared = undefined;
  await (await issuer)?.close();
}

export async function startIssuer(options: { readonly unref?: boolean } = {}): Promise<Issuer> {
  const es = await generateKeyPair('ES256');
  const rs = await generateKeyPair('RS256');
  const published = JSON.stringify({
    keys: [
      { ...(await exportJWK(es.publicKey)), kid: 'bench-es', alg: 'ES256', use: 'sig' },
      { ...(await exportJWK(rs.publicKey)), kid: 'bench-rs', alg: 'RS256', use: 'sig' },
    ],
  });
  let fetches = 0;
  const server = createServer((req, res) => {
    if (req.url === '/jwks') {
      fetches += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(published);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  if (options.unref === true) server.unref();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    fetches: () => fetches,
    token: (alg, audience, kid, key) =>
      new SignJWT({ sub: 'bench-user', client_id: 'bench', scope: 'notes:read' })
        .setProtectedHeader({ alg, kid: kid ?? (alg === 'ES256' ? 'bench-es' : 'bench-rs'), typ: 'at+jwt' })
        .setIssuer(url)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key ?? (alg === 'ES256' ? es.privateKey : rs.privateKey)),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
