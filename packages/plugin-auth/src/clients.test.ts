// Real clients against a real authorization server: the SDK v2 client (2026-07-28 and 2025 revisions) and
// the SDK v1 client log in with client credentials, call tools, and step up when a scope is missing.
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { ClientCredentialsProvider as V1ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED_TOKEN } from './auth-info.js';
import { type AuthServer, CLIENTS, calls, type Rig, seen, startAuthServer, startPier } from './test-as.js';

let as: AuthServer;
const rigs: Rig[] = [];
const closers: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  as = await startAuthServer();
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close().catch(() => undefined)));
  await Promise.all(rigs.splice(0).map((rig) => rig.server.close()));
});
afterAll(() => as.close());

async function rig(sessions = false, more: Record<string, unknown> = {}): Promise<Rig> {
  const created = await startPier(
    () => ({ authorizationServers: [as.issuer], scopesSupported: ['notes:read', 'notes:write'], ...more }),
    { sessions },
  );
  rigs.push(created);
  return created;
}

function provider(client: { client_id: string; client_secret: string; scope: string }) {
  return new ClientCredentialsProvider({
    clientId: client.client_id,
    clientSecret: client.client_secret,
    scope: client.scope,
    expectedIssuer: as.issuer,
  });
}

describe('client credentials, end to end', () => {
  it.each([
    ['2026-07-28', false, true],
    ['2025 stateless', false, false],
    ['2025 sessions', true, false],
  ])(
    'SDK v2 (%s) discovers the AS from the 401, gets a token for the resource and calls tools',
    async (_, sessions, modern) => {
      const { url, resource } = await rig(sessions);
      const client = new Client(
        { name: 'cc', version: '1.0.0' },
        modern ? { versionNegotiation: { mode: 'auto' } } : {},
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), { authProvider: provider(CLIENTS.writer) }),
      );
      closers.push(() => client.close());
      seen.length = 0;
      const answer = await client.callTool({ name: 'whoami', arguments: {} });
      expect(answer.structuredContent).toMatchObject({
        clientId: 'writer-app',
        // RFC 9068 §2.2: with no resource owner, sub is the client.
        subject: 'writer-app',
        issuer: as.issuer,
        scopes: ['notes:read', 'notes:write'],
        token: REDACTED_TOKEN,
      });
      // The raw token is there only for who asks for it, and it is the AS's JWT for this resource.
      const raw = (seen[0] as { raw: string }).raw;
      expect(raw.split('.')).toHaveLength(3);
      const payload = JSON.parse(Buffer.from(raw.split('.')[1] as string, 'base64url').toString());
      expect(payload).toMatchObject({ aud: resource, iss: as.issuer, client_id: 'writer-app' });
      expect(await client.callTool({ name: 'add_note', arguments: {} })).toMatchObject({
        content: [{ text: 'added' }],
      });
    },
  );

  it('SDK v1 (legacy, sessions) logs in with client credentials too', async () => {
    const { url } = await rig(true);
    const v1 = new V1Client({ name: 'v1', version: '1.0.0' });
    const authProvider = new V1ClientCredentialsProvider({
      clientId: CLIENTS.reader.client_id,
      clientSecret: CLIENTS.reader.client_secret,
      scope: CLIENTS.reader.scope,
      expectedIssuer: as.issuer,
    });
    await v1.connect(new V1Transport(new URL(url), { authProvider }));
    closers.push(() => v1.close());
    calls.length = 0;
    expect(await v1.callTool({ name: 'list_notes', arguments: {} })).toMatchObject({
      content: [{ text: 'notes' }],
    });
    expect(calls).toEqual(['list_notes']);
  });

  it('negative control: with auth off the same client never talks to the AS', async () => {
    const open = await startPier(false);
    rigs.push(open);
    const before = as.log.length;
    const client = new Client({ name: 'cc', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(open.url), { authProvider: provider(CLIENTS.writer) }),
    );
    closers.push(() => client.close());
    expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toMatchObject({
      clientId: null,
    });
    expect(as.log.length).toBe(before);
  });

  it.each([
    ['2026-07-28', true],
    ['2025', false],
  ])(
    'step-up (%s): a notes:read token calling add_note gets 403, asks for notes:write and retries',
    async (_, modern) => {
      const { url } = await rig(false);
      const client = new Client(
        { name: 'cc', version: '1.0.0' },
        modern ? { versionNegotiation: { mode: 'auto' } } : {},
      );
      const authProvider = provider({ ...CLIENTS.writer, scope: 'notes:read' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider }));
      closers.push(() => client.close());
      calls.length = 0;
      expect(await client.callTool({ name: 'add_note', arguments: {} })).toMatchObject({
        content: [{ text: 'added' }],
      });
      expect(calls).toEqual(['add_note']);
      expect(authProvider.tokens()?.scope?.split(' ').sort()).toEqual(['notes:read', 'notes:write']);
    },
  );

  it('an unsatisfiable step-up (the AS will not grant notes:write) fails without running the handler', async () => {
    // The SDK client asks for the 401's scope hint over its own: keep the hint to what a reader may get.
    const { url } = await rig(false, { challengeScopes: ['notes:read'] });
    const client = new Client({ name: 'cc', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    closers.push(() => client.close());
    calls.length = 0;
    // Connecting works (notes:read is granted); only the step-up to notes:write is refused by the AS.
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { authProvider: provider(CLIENTS.reader) }),
    );
    let failure: unknown;
    try {
      await client.callTool({ name: 'add_note', arguments: {} });
    } catch (error) {
      failure = error;
    }
    expect(String(failure)).toMatch(/scope/);
    expect(calls).toEqual([]);
  });
});
