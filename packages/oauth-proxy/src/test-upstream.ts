// Test helper (excluded from the build): the identity provider upstream of the proxy, a real oidc-provider
// on 127.0.0.1:0 set up the way GitHub is: no registration endpoint, pre-registered confidential clients
// with exactly one redirect URI each, opaque access tokens, and GitHub's user API (`GET /user` answering
// `{ id, login }` for a valid token, 401 otherwise). The same server also answers OpenID Connect discovery,
// which the generic OIDC and Google presets use.
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/** One OAuth app registered at the provider: what an operator copies into the proxy's configuration. */
export interface UpstreamClient {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The proxy's callback, the one redirect URI the app allows. */
  readonly redirectUri: string;
  /** Lifetime of this app's access tokens, in seconds. Default: the provider's. */
  readonly accessTokenTtl?: number;
  /** Whether this app gets refresh tokens. Default: the provider's. */
  readonly refreshTokens?: boolean;
}

export interface Upstream {
  readonly issuer: string;
  readonly provider: Provider;
  /** GitHub's endpoints, on this server. */
  readonly github: { authorizationEndpoint: string; tokenEndpoint: string; userEndpoint: string };
  /** Requests served, as `METHOD path` (no query, no bodies). */
  readonly log: string[];
  /** `GET /user` answers by the token they were given (`ok` or `401`). */
  readonly userCalls: string[];
  /** Every code, access token and refresh token the provider issued (their values): canary material. */
  readonly issued: string[];
  close(): Promise<void>;
}

export interface UpstreamOptions {
  readonly clients: readonly UpstreamClient[];
  /** Lifetime of the upstream access tokens, in seconds. Default 300. */
  readonly accessTokenTtl?: number;
  /** Issue refresh tokens (a GitHub App with expiring tokens does; an OAuth App does not). Default true. */
  readonly refreshTokens?: boolean;
}

/** The scopes the provider knows: GitHub's, plus OpenID Connect's for the OIDC presets. */
export const UPSTREAM_SCOPES = ['read:user', 'repo', 'openid', 'email', 'profile', 'offline_access'];

/** Users get stable numeric ids, as GitHub's are. */
const ids = new Map<string, number>();
export const githubId = (login: string): number => {
  let id = ids.get(login);
  if (id === undefined) {
    id = 1_000 + ids.size;
    ids.set(login, id);
  }
  return id;
};

export async function startUpstream(options: UpstreamOptions): Promise<Upstream> {
  const http = createHttpServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const ttl = options.accessTokenTtl ?? 300;
  const byId = new Map(options.clients.map((client) => [client.clientId, client]));
  const provider = new Provider(issuer, {
    clients: options.clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: [client.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    })),
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'upstream-1', alg: 'RS256', use: 'sig' }] },
    scopes: UPSTREAM_SCOPES,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    issueRefreshToken: async (_ctx, client) =>
      byId.get(client.clientId)?.refreshTokens ?? options.refreshTokens ?? true,
    // PKCE is accepted and checked when sent (the proxy always sends it), as GitHub does today.
    pkce: { required: () => false },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: false },
      revocation: { enabled: true },
      resourceIndicators: { enabled: false },
    },
    cookies: { keys: ['upstream-test-cookie-key'] },
    renderError: (ctx, out) => {
      ctx.type = 'json';
      ctx.body = out;
    },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ sub, name: `User ${sub}`, email: `${sub}@example.com`, email_verified: true }),
    }),
    ttl: {
      AccessToken: (_ctx, _token, client) => byId.get(client.clientId)?.accessTokenTtl ?? ttl,
      AuthorizationCode: 60,
      IdToken: 300,
      Interaction: 300,
      Session: 600,
      Grant: 600,
      RefreshToken: 600,
    },
  });
  const log: string[] = [];
  const userCalls: string[] = [];
  const issued: string[] = [];
  for (const event of ['access_token.saved', 'refresh_token.saved', 'authorization_code.saved'] as const) {
    // Typed by @types/oidc-provider under other names; the events exist (base_model.js emits them).
    (provider as unknown as NodeJS.EventEmitter).on(event, (token: { jti: string }) =>
      issued.push(token.jti),
    );
  }
  const callback = provider.callback();
  http.on('request', async (req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    log.push(`${req.method} ${path}`);
    if (req.method === 'GET' && path === '/user') {
      // GitHub's `GET /user`: the token's owner, or 401 "Bad credentials".
      const token = /^(?:Bearer|token) (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const found = token === undefined ? undefined : await provider.AccessToken.find(token);
      if (found === undefined || found.isExpired || found.accountId === undefined) {
        userCalls.push('401');
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'Bad credentials' }));
        return;
      }
      userCalls.push('ok');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: githubId(found.accountId),
          login: found.accountId,
          name: `User ${found.accountId}`,
        }),
      );
      return;
    }
    callback(req, res);
  });
  return {
    issuer,
    provider,
    github: {
      authorizationEndpoint: `${issuer}/auth`,
      tokenEndpoint: `${issuer}/token`,
      userEndpoint: `${issuer}/user`,
    },
    log,
    userCalls,
    issued,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
