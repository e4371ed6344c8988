// AUTH_ISSUER and AUTH_RESOURCE turn OAuth on: a real authorization server (oidc-provider, on 127.0.0.1)
// issues client-credentials tokens, the app (a child process) checks them, notes:read and notes:write
// guard what they name, health stays open. Without the settings nothing asks for a token.
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, startHttpApp } from './test-app.js';
import {
  type AuthServer,
  CLIENTS,
  protectedApp as protectedAppOf,
  startAuthServer,
  tokenFor as tokenOf,
} from './test-auth.js';
import { structured } from './test-clients.js';

const TEST_TIMEOUT_MS = 30_000;

let issuer: string;
let authServer: AuthServer;
beforeAll(async () => {
  authServer = await startAuthServer();
  issuer = authServer.issuer;
}, 20_000);
afterAll(() => authServer.close());
afterEach(cleanUp);

const protectedApp = () => protectedAppOf(issuer);
const tokenFor = (client: (typeof CLIENTS)[keyof typeof CLIENTS], resource: string) =>
  tokenOf(issuer, client, resource);

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
