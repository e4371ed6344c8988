// Test helper (excluded from the build): a real authorization server (oidc-provider on 127.0.0.1) issuing
// client-credentials JWT access tokens for the app's notes scopes, and the app started as its resource.
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { type AppProcess, startHttpApp } from './test-app.js';

/** The AS's clients: each is granted exactly its `scope` (the outsider none of the notes scopes). */
export const CLIENTS = {
  reader: { client_id: 'notes-reader', client_secret: 'reader-secret-0123456789abcdef', scope: 'notes:read' },
  writer: {
    client_id: 'notes-writer',
    client_secret: 'writer-secret-0123456789abcdef',
    scope: 'notes:read notes:write',
  },
  outsider: { client_id: 'outsider', client_secret: 'outsider-secret-0123456789abcdef', scope: 'profile' },
} as const;
export type TestClient = (typeof CLIENTS)[keyof typeof CLIENTS];

export interface AuthServer {
  readonly issuer: string;
  close(): Promise<void>;
}

/** oidc-provider on a free loopback port, signing ES256 JWT access tokens for any resource asked for. */
export async function startAuthServer(): Promise<AuthServer> {
  const http: Server = createHttpServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: Object.values(CLIENTS).map((client) => ({
      ...client,
      grant_types: ['client_credentials'],
      // The only signing key is ES256 (the provider's default for ID tokens would be RS256).
      id_token_signed_response_alg: 'ES256',
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'es-1', alg: 'ES256', use: 'sig' }] },
    scopes: ['notes:read', 'notes:write', 'profile'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: 'notes:read notes:write profile',
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt' as const,
          jwt: { sign: { alg: 'ES256' as const } },
        }),
      },
    },
    ttl: { ClientCredentials: 300 },
    cookies: { keys: ['example-e2e-cookie-key'] },
  });
  http.on('request', provider.callback());
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** A free loopback port: the canonical URL must be configured before the app listens. */
export async function freePort(): Promise<number> {
  const probe = createHttpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The app with AUTH_ISSUER and AUTH_RESOURCE (and `env`), its resource URL fixed before it listens. */
export async function protectedApp(
  issuer: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ app: AppProcess; resource: string }> {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const app = await startHttpApp({
    args: ['--port', String(port)],
    env: { AUTH_ISSUER: issuer, AUTH_RESOURCE: resource, ...env },
  });
  return { app, resource };
}

/** A client-credentials access token for `resource`, as a real client gets it. */
export async function tokenFor(issuer: string, client: TestClient, resource: string): Promise<string> {
  const res = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: client.scope, resource }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!res.ok || body.access_token === undefined)
    throw new Error(`token request failed: ${JSON.stringify(body)}`);
  return body.access_token;
}
