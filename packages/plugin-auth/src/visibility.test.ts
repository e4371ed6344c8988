// visibility: 'hide' — the lists show only what the caller's scopes allow, on both eras, with real tokens
// from the AS and the SDK v2 client; 2026-07-28 lists are then marked cacheScope "private".
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authPlugin } from './plugin.js';
import {
  type AuthServer,
  CLIENTS,
  calls,
  clientToken,
  mint,
  type Rig,
  startAuthServer,
  startPier,
} from './test-as.js';
import { ask, initialize, LEGACY, modern } from './test-http.js';

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

async function rig(visibility: 'all' | 'hide') {
  const created = await startPier(() => ({
    authorizationServers: [as.issuer],
    scopesSupported: ['notes:read', 'notes:write'],
    // Every client may get the hint's scopes at connect; what each is granted decides the rest.
    challengeScopes: ['notes:read'],
    implies: { 'notes:admin': ['notes:write', 'notes:read'] },
    visibility,
  }));
  rigs.push(created);
  return created;
}

type Lists = { tools: string[]; resources: string[]; templates: string[]; prompts: string[] };
const sorted = (items: { name?: string; uri?: string }[]) =>
  items.map((item) => item.uri ?? item.name ?? '').sort();

/** The four lists as the SDK v2 client (client credentials, its own scope) gets them. */
async function sdkLists(
  url: string,
  client: (typeof CLIENTS)[keyof typeof CLIENTS],
  era: '2026' | '2025',
): Promise<Lists> {
  const mcp = new Client(
    { name: 'lists', version: '1.0.0' },
    era === '2026' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  const authProvider = new ClientCredentialsProvider({
    clientId: client.client_id,
    clientSecret: client.client_secret,
    scope: client.scope,
    expectedIssuer: as.issuer,
  });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider }));
  closers.push(() => mcp.close());
  return {
    tools: sorted((await mcp.listTools()).tools),
    resources: sorted((await mcp.listResources()).resources),
    templates: sorted((await mcp.listResourceTemplates()).resourceTemplates),
    prompts: sorted((await mcp.listPrompts()).prompts),
  };
}

/** The four lists over raw HTTP with `token` (a real AS token with the client's full scope). */
async function rawLists(url: string, token: string, era: '2026' | '2025'): Promise<Lists> {
  const get = async (method: string, key: string) => {
    const request =
      era === '2026'
        ? modern(method)
        : { headers: LEGACY, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }) };
    const answer = await ask(url, {
      headers: { ...request.headers, authorization: `Bearer ${token}` },
      body: request.body,
    });
    return sorted(
      (answer.json as { result: Record<string, { name?: string; uri?: string }[]> }).result[key] ?? [],
    );
  };
  return {
    tools: await get('tools/list', 'tools'),
    resources: await get('resources/list', 'resources'),
    templates: await get('resources/templates/list', 'resourceTemplates'),
    prompts: await get('prompts/list', 'prompts'),
  };
}

const READER = {
  tools: ['list_notes', 'whoami'],
  resources: ['notes://all'],
  templates: [],
  prompts: ['summarize'],
};
const EVERYTHING = {
  tools: ['add_note', 'list_notes', 'whoami'],
  resources: ['drafts://1', 'notes://all'],
  templates: ['drafts'],
  prompts: ['summarize'],
};

describe("visibility: 'hide'", () => {
  it.each(['2026', '2025'] as const)(
    '%s: a reader sees what notes:read allows; a writer and an admin (hierarchy) see everything',
    async (era) => {
      const r = await rig('hide');
      calls.length = 0;
      expect(await sdkLists(r.url, CLIENTS.reader, era)).toEqual(READER);
      const token = (client: (typeof CLIENTS)[keyof typeof CLIENTS]) => clientToken(as, client, r.resource);
      expect(await rawLists(r.url, await token(CLIENTS.reader), era)).toEqual(READER);
      expect(await rawLists(r.url, await token(CLIENTS.writer), era)).toEqual(EVERYTHING);
      expect(await rawLists(r.url, await token(CLIENTS.admin), era)).toEqual(EVERYTHING);
      // Listing ran no tool, read or prompt handler.
      expect(calls).toEqual([]);
    },
  );

  it('negative control: by default (visibility all) a reader is shown every declaration, and challenged on use', async () => {
    const r = await rig('all');
    // Every tool, template and prompt is listed; what a template lists is user data, which only a caller
    // who may read the template sees (whatever the visibility).
    const declared = { ...EVERYTHING, resources: ['notes://all'] };
    expect(await sdkLists(r.url, CLIENTS.reader, '2026')).toEqual(declared);
    const reader = await clientToken(as, CLIENTS.reader, r.resource);
    expect(await rawLists(r.url, reader, '2025')).toEqual(declared);
  });

  it('a token with none of the scopes sees only what needs none; hidden is still refused on call (403)', async () => {
    const r = await rig('hide');
    const other = { authorization: `Bearer ${await mint(as, r.resource, { payload: { scope: 'other' } })}` };
    const list = modern('tools/list');
    const answer = await ask(r.url, { headers: { ...list.headers, ...other }, body: list.body });
    expect(
      (answer.json as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name),
    ).toEqual(['whoami']);
    const call = modern('tools/call', { name: 'add_note', arguments: {} });
    calls.length = 0;
    expect((await ask(r.url, { headers: { ...call.headers, ...other }, body: call.body })).status).toBe(403);
    expect(calls).toEqual([]);
  });

  it('2026-07-28 lists are marked cacheScope "private"; 2025 lists carry no cache field', async () => {
    const r = await rig('hide');
    const reader = { authorization: `Bearer ${await clientToken(as, CLIENTS.reader, r.resource)}` };
    for (const method of ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']) {
      const { body, headers } = modern(method);
      const answer = await ask(r.url, { headers: { ...headers, ...reader }, body });
      expect(answer.status, method).toBe(200);
      expect((answer.json as { result: Record<string, unknown> }).result, method).toMatchObject({
        cacheScope: 'private',
      });
      const legacy = await ask(r.url, {
        headers: { ...LEGACY, ...reader },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }),
      });
      expect(legacy.status, method).toBe(200);
      expect(legacy.text, method).not.toContain('cacheScope');
    }
  });

  it("refuses a visibility that is not 'all' or 'hide'", () => {
    expect(() =>
      authPlugin({
        resource: 'https://a.example.com/mcp',
        authorizationServers: ['https://as.example.com'],
        visibility: 'scoped' as never,
      }),
    ).toThrow(/visibility must be 'all' or 'hide'/);
  });
});

describe("completions and a template's listed entries need the template's (or prompt's) scopes", () => {
  /** `completion/complete` over raw HTTP in `era` with `token`. */
  const complete = (
    url: string,
    token: string,
    era: '2026' | '2025',
    ref: Record<string, unknown>,
    name: string,
  ) => {
    const params = { ref, argument: { name, value: '' } };
    const request =
      era === '2026'
        ? modern('completion/complete', params)
        : {
            headers: LEGACY,
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'completion/complete', params }),
          };
    return ask(url, {
      headers: { ...request.headers, authorization: `Bearer ${token}` },
      body: request.body,
    });
  };
  const DRAFTS = { type: 'ref/resource', uri: 'drafts://{id}' };
  const SUMMARIZE = { type: 'ref/prompt', name: 'summarize' };
  const values = (answer: { json: unknown }) =>
    (answer.json as { result?: { completion?: { values?: string[] } } }).result?.completion?.values;

  describe.each(['all', 'hide'] as const)('visibility: %s', (visibility) => {
    it.each(['2026', '2025'] as const)(
      '%s: a caller without them gets 403 insufficient_scope and no values, and a list without the entries',
      async (era) => {
        const r = await rig(visibility);
        const reader = await clientToken(as, CLIENTS.reader, r.resource);
        const writer = await clientToken(as, CLIENTS.writer, r.resource);
        const other = await mint(as, r.resource, { payload: { scope: 'other' } });
        calls.length = 0;
        const refused = await complete(r.url, reader, era, DRAFTS, 'id');
        expect(refused.status).toBe(403);
        expect(String(refused.headers['www-authenticate'])).toMatch(
          /error="insufficient_scope".*scope="notes:write notes:read"/,
        );
        expect(refused.text).not.toContain('"1"');
        const prompt = await complete(r.url, other, era, SUMMARIZE, 'tag');
        expect(prompt.status).toBe(403);
        expect(String(prompt.headers['www-authenticate'])).toContain('scope="notes:read"');
        // No completer ran for a refused caller.
        expect(calls).toEqual([]);
        expect((await rawLists(r.url, reader, era)).resources).toEqual(['notes://all']);
        // Negative control: who may read completes and lists.
        expect(values(await complete(r.url, writer, era, DRAFTS, 'id'))).toEqual(['1']);
        expect(values(await complete(r.url, reader, era, SUMMARIZE, 'tag'))).toEqual(['work']);
        expect(calls).toEqual(['complete drafts', 'complete summarize']);
        expect((await rawLists(r.url, writer, era)).resources).toEqual(['drafts://1', 'notes://all']);
      },
    );
  });

  it('on a 2025 session too, and with the hierarchy (notes:admin implies notes:write)', async () => {
    const r = await startPier(
      () => ({
        authorizationServers: [as.issuer],
        scopesSupported: ['notes:read', 'notes:write'],
        implies: { 'notes:admin': ['notes:write', 'notes:read'] },
      }),
      { sessions: true },
    );
    rigs.push(r);
    const session = async (token: string) => {
      const auth = { authorization: `Bearer ${token}` };
      const opened = await ask(r.url, { headers: { ...LEGACY, ...auth }, body: initialize() });
      const id = String(opened.headers['mcp-session-id']);
      const headers = { ...LEGACY, ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
      await ask(r.url, {
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      return (method: string, params: Record<string, unknown>) =>
        ask(r.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method, params }) });
    };
    const asReader = await session(await clientToken(as, CLIENTS.reader, r.resource));
    const params = { ref: DRAFTS, argument: { name: 'id', value: '' } };
    expect((await asReader('completion/complete', params)).status).toBe(403);
    const listed = await asReader('resources/list', {});
    expect(listed.text).not.toContain('drafts://1');
    expect(listed.text).toContain('notes://all');
    const asAdmin = await session(await clientToken(as, CLIENTS.admin, r.resource));
    expect(values(sse(await asAdmin('completion/complete', params)))).toEqual(['1']);
    expect((await asAdmin('resources/list', {})).text).toContain('drafts://1');
  });
});

/** A 2025 session answers on an SSE stream: its JSON-RPC message. */
function sse(answer: { text: string; json: unknown }): { json: unknown } {
  if (answer.json !== undefined) return answer;
  const data = answer.text.match(/^data: (.*)$/m)?.[1];
  return { json: data === undefined ? undefined : JSON.parse(data) };
}
