// What a token without notes:read learns of the notes: nothing. A real authorization server (oidc-provider)
// issues client-credentials tokens; the SDK v2 client, in both eras, on stateless HTTP and on 2025
// sessions, asks the app (a child process) to complete a note id and to list the resources. The rule: a
// resource template's completions and its entries in resources/list need the template's scopes, like its
// read. The completion is refused as the read is (403 insufficient_scope, which the client turns into an
// InsufficientScopeError or a step-up); the list still answers, without the notes. A notes:read token
// (the negative control) gets both.
import { Client, InsufficientScopeError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppProcess } from './test-app.js';
import { cleanUp } from './test-app.js';
import {
  type AuthServer,
  CLIENTS,
  protectedApp,
  startAuthServer,
  type TestClient,
  tokenFor,
} from './test-auth.js';
import { structured } from './test-clients.js';

const TEST_TIMEOUT_MS = 30_000;
const SECRET_TITLE = 'Merger with Initech, do not share';
const TEMPLATE = 'notes://{id}';
const ERAS = [
  ['2026-07-28', 'auto'],
  ['2025-11-25', 'legacy'],
] as const;

let as: AuthServer;
const clients: Client[] = [];
beforeAll(async () => {
  as = await startAuthServer();
}, 20_000);
afterAll(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await cleanUp();
  await as.close();
});

/**
 * The SDK v2 client carrying `who`'s access token from the AS (a token provider: the client's own login
 * would ask for the scopes of the 401's hint, which the outsider may not have). On 403 insufficient_scope
 * the client then throws InsufficientScopeError; with an OAuth provider it would step up instead.
 */
async function connectAs(url: string, who: TestClient, mode: 'auto' | 'legacy'): Promise<Client> {
  const token = await tokenFor(as.issuer, who, new URL(url).href);
  const client = new Client(
    { name: `scopes-${who.client_id}`, version: '1.0.0' },
    { versionNegotiation: { mode } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }),
  );
  clients.push(client);
  return client;
}

const completeId = (client: Client) =>
  client.complete({ ref: { type: 'ref/resource', uri: TEMPLATE }, argument: { name: 'id', value: '' } });

describe.each([
  ['stateless HTTP', {}],
  ['2025 sessions (SESSIONS=true)', { SESSIONS: 'true' }],
] as const)('on %s', (_mode, env: NodeJS.ProcessEnv) => {
  let app: AppProcess;
  let resource: string;
  let noteId: string;
  beforeAll(async () => {
    ({ app, resource } = await protectedApp(as.issuer, env));
    const writer = await connectAs(app.url, CLIENTS.writer, 'auto');
    const added = structured<{ note: { id: string } }>(
      await writer.callTool({ name: 'add_note', arguments: { title: SECRET_TITLE, body: 'numbers' } }),
    );
    noteId = added.note.id;
  }, TEST_TIMEOUT_MS);

  it.each(ERAS)(
    '%s: completing a note id needs notes:read, like reading the note (InsufficientScopeError)',
    async (_era, mode) => {
      const outsider = await connectAs(app.url, CLIENTS.outsider, mode);
      for (const refused of [
        () => completeId(outsider),
        () => outsider.readResource({ uri: `notes://${noteId}` }),
      ]) {
        const error = await refused().then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(InsufficientScopeError);
        expect((error as InsufficientScopeError).requiredScope).toContain('notes:read');
        expect(String(error)).not.toContain(noteId);
      }
      // Negative control: notes:read completes the id.
      const reader = await connectAs(app.url, CLIENTS.reader, mode);
      expect((await completeId(reader)).completion.values).toContain(noteId);
    },
    TEST_TIMEOUT_MS,
  );

  it.each(ERAS)(
    '%s: resources/list leaves the notes out for a token without notes:read, and still answers',
    async (_era, mode) => {
      const outsider = await connectAs(app.url, CLIENTS.outsider, mode);
      const listed = await outsider.listResources();
      // The server and its fixed resources stay visible (their reads are refused with 403).
      expect(listed.resources.map((entry) => entry.uri)).toContain('notes://index');
      expect(listed.resources.map((entry) => entry.uri)).not.toContain(`notes://${noteId}`);
      expect(JSON.stringify(listed)).not.toContain(SECRET_TITLE);
      // Negative control: notes:read lists the note under its title.
      const reader = await connectAs(app.url, CLIENTS.reader, mode);
      expect((await reader.listResources()).resources).toContainEqual(
        expect.objectContaining({ uri: `notes://${noteId}`, name: SECRET_TITLE }),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'over raw HTTP: completion/complete answers 403 insufficient_scope naming notes:read, with no ids',
    async () => {
      const token = await tokenFor(as.issuer, CLIENTS.outsider, resource);
      const params = { ref: { type: 'ref/resource', uri: TEMPLATE }, argument: { name: 'id', value: '' } };
      const modern = await post(app.url, token, 'completion/complete', params, true);
      expect(modern.status).toBe(403);
      expect(modern.headers.get('www-authenticate')).toMatch(
        /error="insufficient_scope".*scope="[^"]*notes:read/,
      );
      expect(await modern.text()).not.toContain(noteId);
      if (env.SESSIONS === undefined) {
        const legacy = await post(app.url, token, 'completion/complete', params, false);
        expect(legacy.status).toBe(403);
        expect(legacy.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
        expect(await legacy.text()).not.toContain(noteId);
      }
    },
    TEST_TIMEOUT_MS,
  );
});

/** One JSON-RPC request with a bearer token: 2026-07-28 (`modern`) or a stateless 2025 one. */
function post(url: string, token: string, method: string, params: Record<string, unknown>, modern: boolean) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      ...(modern && { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: modern
        ? {
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          }
        : params,
    }),
  });
}
