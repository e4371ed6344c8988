// A minimal OAuth authorization server for the tests: RFC 8414 metadata and a key set on 127.0.0.1, and
// ES256 access tokens (RFC 9068) signed with its key. What `jwt()` of @pier/plugin-auth reads, nothing more.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export interface Issuer {
  readonly url: string;
  /** An access token for `audience` with these scopes, valid for five minutes. */
  token(audience: string, scope?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startIssuer(): Promise<Issuer> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-1', alg: 'ES256', use: 'sig' };
  let url = '';
  const server: Server = createServer((req, res) => {
    const body =
      req.url === '/.well-known/oauth-authorization-server'
        ? { issuer: url, jwks_uri: `${url}/jwks`, token_endpoint: `${url}/token` }
        : req.url === '/jwks'
          ? { keys: [jwk] }
          : undefined;
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not_found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    token: (audience, scope = 'mcp') =>
      new SignJWT({ scope, client_id: 'test-client' })
        .setProtectedHeader({ alg: 'ES256', kid: 'test-1', typ: 'at+jwt' })
        .setIssuer(url)
        .setSubject('user-1')
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
