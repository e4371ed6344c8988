// Test helper (excluded from the build): a real authorization server (oidc-provider) on 127.0.0.1:0, a
// Pier server protected by authPlugin on its own port, and a jose minter signing with the AS's own keys.
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  completable,
  createServer,
  definePrompt,
  defineResource,
  defineServer,
  defineTool,
  type PierPlugin,
  type PierServer,
  type ToolContext,
} from '@pier/core';
import { httpTransport } from '@pier/transport-http';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import Provider from 'oidc-provider';
import { z } from 'zod';
import { authDetails, unsafeRawToken } from './auth-info.js';
import { type AuthPluginOptions, authPlugin } from './plugin.js';

export const SCOPES = 'notes:read notes:write notes:admin';
export const CLIENTS = {
  reader: { client_id: 'reader-app', client_secret: 'reader-secret-0123456789abcdef', scope: 'notes:read' },
  writer: {
    client_id: 'writer-app',
    client_secret: 'writer-secret-0123456789abcdef',
    scope: 'notes:read notes:write',
  },
  admin: { client_id: 'admin-app', client_secret: 'admin-secret-0123456789abcdef', scope: 'notes:admin' },
  rs: { client_id: 'pier-rs', client_secret: 'pier-rs-secret-0123456789abcdef', scope: 'notes:read' },
} as const;

export interface AuthServer {
  readonly issuer: string;
  readonly provider: Provider;
  /** Private signing keys (ES256 first, RS256 second), as published (public parts) by the AS. */
  readonly keys: { readonly es256: SigningKey; readonly rs256: SigningKey };
  /** Requests the AS served, as `METHOD path` (no query, no bodies). */
  readonly log: string[];
  /** Refuses every request (connection reset) while true: the key set and metadata are down. */
  down: boolean;
  close(): Promise<void>;
}

export interface SigningKey {
  readonly kid: string;
  readonly alg: 'ES256' | 'RS256';
  readonly privateKey: Parameters<typeof exportJWK>[0];
  readonly publicJwk: JWK;
}

/** Opaque tokens for this resource (introspection tests); JWT for any other. */
export const OPAQUE_SUFFIX = '/opaque';

export interface AuthServerOptions {
  /** Lifetime of access tokens, in seconds. Default 300. */
  readonly accessTokenTtl?: number;
  /** Listen on this port: a restarted AS keeps its issuer (key rotation). Default: any free port. */
  readonly port?: number;
  /** The keys to publish and sign with, instead of fresh ones (`es-1`, `rs-1`). */
  readonly keys?: { readonly es256: SigningKey; readonly rs256: SigningKey };
  /**
   * Client ID metadata documents: where the AS really fetches an `https://` client_id from. Only the
   * address is rewritten (to a loopback http server of the test); oidc-provider's own fetch, checks and
   * cache do the rest. Return `undefined` to let the URL through unchanged.
   */
  readonly documents?: (url: string) => string | undefined;
}

export async function startAuthServer(options: AuthServerOptions = {}): Promise<AuthServer> {
  const http = createHttpServer();
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const es256 = options.keys?.es256 ?? (await signingKey('ES256', 'es-1'));
  const rs256 = options.keys?.rs256 ?? (await signingKey('RS256', 'rs-1'));
  const privateJwk = async (key: SigningKey) => ({
    ...(await exportJWK(key.privateKey)),
    kid: key.kid,
    alg: key.alg,
    use: 'sig',
  });
  const provider = new Provider(issuer, {
    clients: Object.values(CLIENTS).map((client) => ({
      ...client,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    jwks: { keys: [await privateJwk(es256), await privateJwk(rs256)] },
    scopes: SCOPES.split(' '),
    // Authorization code + PKCE for clients that register themselves (RFC 7591) or are named by a
    // metadata document URL; refresh tokens for every client allowed the grant (no offline_access: the
    // MCP client does not ask for it). Login and consent are oidc-provider's own development pages,
    // driven over HTTP by the tests' user agent (test-flows.ts).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    fetch: (url, init) => {
      const target = options.documents?.(url instanceof Request ? url.url : String(url));
      if (target === undefined) return fetch(url, init);
      // The rewritten address is loopback, which the SSRF guard of oidc-provider's dispatcher refuses.
      const { dispatcher: _guard, ...rest } = (init ?? {}) as RequestInit & { dispatcher?: unknown };
      return fetch(target, rest);
    },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: async () => true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator) => ({
          scope: SCOPES,
          audience: resourceIndicator,
          accessTokenTTL: options.accessTokenTtl ?? 300,
          ...(resourceIndicator.endsWith(OPAQUE_SUFFIX)
            ? { accessTokenFormat: 'opaque' as const }
            : { accessTokenFormat: 'jwt' as const, jwt: { sign: { alg: 'ES256' as const } } }),
        }),
      },
    },
    cookies: { keys: ['pier-test-cookie-key'] },
    renderError: (ctx, out) => {
      ctx.type = 'json';
      ctx.body = out;
    },
    // Every user exists: the login page takes any name (the account id is the token's sub).
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    ttl: {
      ClientCredentials: options.accessTokenTtl ?? 300,
      AccessToken: options.accessTokenTtl ?? 300,
      AuthorizationCode: 60,
      IdToken: 300,
      Interaction: 300,
      Session: 600,
      Grant: 600,
      RefreshToken: 600,
    },
  });
  const log: string[] = [];
  const server: AuthServer = {
    issuer,
    provider,
    keys: { es256, rs256 },
    log,
    down: false,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
  const callback = provider.callback();
  http.on('request', (req, res) => {
    if (server.down) {
      req.socket.destroy();
      return;
    }
    log.push(`${req.method} ${(req.url ?? '').split('?')[0]}`);
    callback(req, res);
  });
  return server;
}

export async function signingKey(alg: 'ES256' | 'RS256', kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** A client-credentials token from the AS for `resource`, as a real client would get it. */
export async function clientToken(
  as: AuthServer,
  client: { client_id: string; client_secret: string; scope: string },
  resource: string,
  scope = client.scope,
): Promise<string> {
  const res = await fetch(`${as.issuer}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!res.ok || body.access_token === undefined)
    throw new Error(`token request failed: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** A token signed with the AS's own key: only the claim under test is wrong. */
export async function mint(
  as: AuthServer,
  resource: string,
  overrides: { payload?: JWTPayload; header?: Record<string, unknown>; key?: SigningKey } = {},
): Promise<string> {
  const key = overrides.key ?? as.keys.es256;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: as.issuer,
    aud: resource,
    sub: 'user-1',
    client_id: 'minted-app',
    scope: 'notes:read',
    iat: now,
    exp: now + 300,
    jti: crypto.randomUUID(),
    ...overrides.payload,
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...overrides.header })
    .sign(key.privateKey);
}

/** A free loopback port: the canonical resource URL is configured before the server listens. */
export async function freePort(): Promise<number> {
  const probe: Server = createHttpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Handler calls, by name: what a rejection test asserts never happened. */
export const calls: string[] = [];
/** What `whoami` saw. */
export const seen: unknown[] = [];

const whoami = (ctx: ToolContext) => {
  calls.push('whoami');
  const details = authDetails(ctx.auth);
  seen.push({ auth: ctx.auth, raw: unsafeRawToken(ctx.auth) });
  return {
    clientId: ctx.auth?.clientId ?? null,
    subject: details?.subject ?? null,
    issuer: details?.issuer ?? null,
    scopes: ctx.auth?.scopes ?? [],
    expiresAt: ctx.auth?.expiresAt ?? null,
    token: ctx.auth?.token ?? null,
  };
};

/** The notes server of the example app, in miniature, with the scopes issue 17 gives it. */
export function notesDeclaration(plugins: readonly PierPlugin[]) {
  return defineServer({
    name: 'notes',
    version: '1.0.0',
    plugins,
    tools: [
      defineTool({ name: 'whoami', handler: (_args, ctx) => whoami(ctx) }),
      defineTool({
        name: 'list_notes',
        scopes: ['notes:read'],
        handler: () => (calls.push('list_notes'), 'notes'),
      }),
      defineTool({
        name: 'add_note',
        scopes: ['notes:write'],
        handler: () => (calls.push('add_note'), 'added'),
      }),
    ],
    resources: [
      defineResource({
        name: 'all',
        uri: 'notes://all',
        scopes: ['notes:read'],
        handler: () => (calls.push('notes://all'), 'all'),
      }),
      defineResource({
        name: 'drafts',
        uriTemplate: 'drafts://{id}',
        scopes: ['notes:write'],
        list: () => ['drafts://1'],
        complete: { id: () => (calls.push('complete drafts'), ['1']) },
        handler: (uri) => (calls.push(uri.href), 'draft'),
      }),
    ],
    prompts: [
      definePrompt({
        name: 'summarize',
        scopes: ['notes:read'],
        args: {
          tag: completable(z.string(), () => (calls.push('complete summarize'), ['work'])).optional(),
        },
        handler: () => (calls.push('summarize'), 'sum'),
      }),
    ],
  });
}

export interface Rig {
  readonly url: string;
  readonly resource: string;
  readonly server: PierServer;
  readonly logs: string[];
}

/** Pier with the notes server on a fresh port, `authPlugin(options(resource))` unless `auth` is false. */
export async function startPier(
  options: ((resource: string) => Partial<AuthPluginOptions>) | false,
  transport: { sessions?: boolean; cors?: boolean; maxSessions?: number } = {},
  extraPlugins: readonly PierPlugin[] = [],
  path = '/mcp',
): Promise<Rig> {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}${path}`;
  const logs: string[] = [];
  const plugins: PierPlugin[] = [...extraPlugins];
  if (options !== false) {
    plugins.push(authPlugin({ resource, ...options(resource) } as AuthPluginOptions));
  }
  const server = createServer(notesDeclaration(plugins), {
    handleSignals: false,
    logStream: { write: (line: string) => (logs.push(line), true) },
  });
  const { url } = await server.listen(
    httpTransport({
      port,
      path,
      ...(transport.sessions !== undefined && { sessions: transport.sessions }),
      ...(transport.maxSessions !== undefined && { maxSessions: transport.maxSessions }),
      ...(transport.cors && { cors: { origins: ['http://app.test'] } }),
    }),
  );
  return { url, resource, server, logs };
}
