// AUTH_ISSUER and AUTH_RESOURCE turn OAuth on: a real authorization server (oidc-provider, on 127.0.0.1)
// issues client-credentials tokens, the app (a child process) checks them, notes:read and notes:write
// guard what they name, health stays open. Without the settings nothing asks for a token.
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, startHttpApp } from './test-app.js';
import { structured } from './test-clients.js';

const TEST_TIMEOUT_MS = 30_000;
const CLIENTS = {
  reader: { client_id: 'notes-reader', client_secret: 'reader-secret-0123456789abcdef', scope: 'notes:read' },
  writer: {
    client_id: 'notes-writer',
    client_secret: 'writer-secret-0123456789abcdef',
    scope: 'notes:read notes:write',
  },
} as const;

let issuer: string;
let authServer: Server;
beforeAll(async () => {
  authServer = createHttpServer();
  await new Promise<void>((resolve) => authServer.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(authServer.address() as AddressInfo).port}`;
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
    scopes: ['notes:read', 'notes:write'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: 'notes:read notes:write',
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt' as const,
          jwt: { sign: { alg: 'ES256' as const } },
        }),
      },
    },
    cookies: { keys: ['example-e2e-cookie-key'] },
  });
  authServer.on('request', provider.callback());
}, 20_000);
afterAll(async () => {
  authServer.closeAllConnections();
  await new Promise((resolve) => authServer.close(resolve));
});
afterEach(cleanUp);

/** A free loopback port: the canonical URL must be configured before the app listens. */
async function freePort(): Promise<number> {
  const probe = createHttpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function protectedApp() {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const app = await startHttpApp({
    args: ['--port', String(port)],
    env: { AUTH_ISSUER: issuer, AUTH_RESOURCE: resource },
  });
  return { app, resource };
}

async function tokenFor(client: (typeof CLIENTS)[keyof typeof CLIENTS], resource: string): Promise<string> {
  const res = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: client.scope, resource }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

function callTool(url: string, name: string, args: Record<string, unknown>, token?: string) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

describe('with AUTH_ISSUER and AUTH_RESOURCE', () => {
  it(
    'refuses a call without a token with the challenge that leads to the metadata, and keeps health open',
    async () => {
      const { app, resource } = await protectedApp();
      const refused = await callTool(app.url, 'list_notes', {});
      expect(refused.status).toBe(401);
      const challenge = refused.headers.get('www-authenticate') ?? '';
      expect(challenge).toContain(
        `resource_metadata="http://127.0.0.1:${new URL(resource).port}/.well-known/oauth-protected-resource/mcp"`,
      );
      const metadata = await fetch(`${app.origin}/.well-known/oauth-protected-resource/mcp`);
      expect(await metadata.json()).toMatchObject({
        resource,
        authorization_servers: [issuer],
        scopes_supported: ['notes:read', 'notes:write'],
      });
      for (const headers of [{}, { authorization: 'Bearer garbage' }]) {
        expect((await fetch(`${app.origin}/health/ready`, { headers })).status).toBe(200);
        expect((await fetch(`${app.origin}/health/live`, { headers })).status).toBe(200);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'notes:read reads but cannot write (403 insufficient_scope, nothing added); notes:write writes',
    async () => {
      const { app, resource } = await protectedApp();
      const reader = await tokenFor(CLIENTS.reader, resource);
      expect((await callTool(app.url, 'list_notes', {}, reader)).status).toBe(200);
      const denied = await callTool(app.url, 'add_note', { title: 'x', body: 'y' }, reader);
      expect(denied.status).toBe(403);
      expect(denied.headers.get('www-authenticate')).toMatch(
        /error="insufficient_scope".*scope="[^"]*notes:write/,
      );
      const writer = await tokenFor(CLIENTS.writer, resource);
      const added = await callTool(app.url, 'add_note', { title: 'x', body: 'y' }, writer);
      expect(added.status).toBe(200);
      const listed = (await (await callTool(app.url, 'list_notes', {}, reader)).json()) as {
        result: { structuredContent: { notes: unknown[] } };
      };
      expect(listed.result.structuredContent.notes).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'the SDK v2 client logs in with client credentials and uses the notes',
    async () => {
      const { app } = await protectedApp();
      const client = new Client(
        { name: 'e2e-auth', version: '1.0.0' },
        { versionNegotiation: { mode: 'auto' } },
      );
      const authProvider = new ClientCredentialsProvider({
        clientId: CLIENTS.writer.client_id,
        clientSecret: CLIENTS.writer.client_secret,
        scope: CLIENTS.writer.scope,
        expectedIssuer: issuer,
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(app.url), { authProvider }));
      try {
        const added = structured<{ note: { id: string } }>(
          await client.callTool({ name: 'add_note', arguments: { title: 'Logged in', body: 'yes' } }),
        );
        expect(added.note.id).toBeTruthy();
      } finally {
        await client.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe('without them (negative control)', () => {
  it(
    'nothing asks for a token',
    async () => {
      const app = await startHttpApp();
      expect((await callTool(app.url, 'add_note', { title: 'x', body: 'y' })).status).toBe(200);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'one setting without the other, or http off loopback, stops the app with exit code 1',
    async () => {
      for (const env of [
        { AUTH_ISSUER: 'https://login.example.com' },
        { AUTH_ISSUER: 'http://login.example.com', AUTH_RESOURCE: 'https://notes.example.com/mcp' },
      ]) {
        const failure = await startHttpApp({ env }).then(
          () => undefined,
          (error: unknown) => error as Error,
        );
        expect(failure, JSON.stringify(env)).toBeInstanceOf(Error);
      }
    },
    TEST_TIMEOUT_MS,
  );
});
