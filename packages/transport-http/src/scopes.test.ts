// Per-operation scopes (declared on tools, resources and prompts) are enforced before the handler runs, on
// both protocol eras, with the authenticator's challenge; and 2026-07-28 requestState is bound to the principal.
import {
  type AuthInfo,
  createServer,
  definePrompt,
  defineResource,
  defineServer,
  defineTool,
  type HttpAuthenticator,
  type PierPlugin,
  type PierServer,
} from '@pier/core';
import { afterEach, describe, expect, it } from 'vitest';
import { httpTransport } from './index.js';
import { ask, initializeBody, LEGACY_HEADERS, modernRequest } from './test-http.js';

let servers: PierServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

const ran: string[] = [];
const tools = [
  defineTool({
    name: 'read',
    scopes: ['notes:read'],
    handler: () => {
      ran.push('read');
      return 'read';
    },
  }),
  defineTool({
    name: 'write',
    scopes: ['notes:write'],
    handler: () => {
      ran.push('write');
      return 'written';
    },
  }),
  defineTool({
    name: 'confirm',
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'sure?',
        requestedSchema: { type: 'object', properties: {} },
      });
      ran.push(`confirm:${answer.action}`);
      return answer.action;
    },
  }),
];
const secret = defineResource({
  name: 'secret',
  uri: 'notes://secret',
  scopes: ['notes:write'],
  handler: () => {
    ran.push('secret');
    return 'secret';
  },
});
const draft = definePrompt({
  name: 'draft',
  scopes: ['notes:write'],
  handler: () => {
    ran.push('draft');
    return 'draft';
  },
});

const users: Record<string, readonly string[]> = {
  reader: ['notes:read'],
  other: ['notes:read'],
  writer: ['notes:read', 'notes:write'],
};
const RMD = 'http://127.0.0.1/.well-known/oauth-protected-resource/mcp';

/** `Bearer <user>`; with `custom`, a challenge that adds the granted scopes (what plugin-auth does). */
function authenticator(custom: boolean): HttpAuthenticator {
  return {
    authenticate(req) {
      const user = /^Bearer (\w+)$/.exec(req.header('authorization') ?? '')?.[1];
      const scopes = user === undefined ? undefined : users[user];
      if (user === undefined || scopes === undefined) return { refusal: { status: 401 } };
      const authInfo: AuthInfo = {
        token: user,
        clientId: user,
        scopes: [...scopes],
        resourceMetadataUrl: RMD,
      };
      return { authInfo };
    },
    ...(custom && {
      scopeChallenge: (required: readonly string[], auth: AuthInfo) =>
        required.every((scope) => auth.scopes.includes(scope))
          ? undefined
          : {
              scopes: [...new Set([...required, ...auth.scopes])] as [string, ...string[]],
              errorDescription: `needs ${required.join(' ')}`,
            },
    }),
  };
}

async function pier(auth: 'off' | 'default' | 'custom', sessions = false): Promise<string> {
  const plugins: PierPlugin[] =
    auth === 'off'
      ? []
      : [{ name: 'auth', setup: (ctx) => ctx.setAuthenticator(authenticator(auth === 'custom')) }];
  const server = createServer(
    defineServer({ name: 'scopes', version: '1.0.0', tools, resources: [secret], prompts: [draft] }),
    { handleSignals: false, logStream: { write: () => true }, plugins },
  );
  servers.push(server);
  return (await server.listen(httpTransport({ port: 0, sessions }))).url;
}

const legacyCall = (name: string, id = 2) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

async function modernCall(url: string, user: string, method: string, params: Record<string, unknown>) {
  const call = modernRequest(method, params);
  const name = typeof params.uri === 'string' ? { 'mcp-name': params.uri } : {};
  return ask(url, {
    method: 'POST',
    headers: { ...call.headers, ...name, authorization: `Bearer ${user}` },
    body: call.body,
  });
}

function expectScopeChallenge(answer: { status: number; headers: Record<string, unknown> }, scope: string) {
  expect(answer.status).toBe(403);
  expect(answer.headers['cache-control']).toBe('no-store');
  const challenge = String(answer.headers['www-authenticate']);
  expect(challenge).toMatch(/^Bearer error="insufficient_scope"/);
  expect(challenge).toContain(`scope="${scope}"`);
  expect(challenge).toContain(`resource_metadata="${RMD}"`);
}

describe('scopes on tools, resources and prompts', () => {
  it('2026-07-28: a caller without the scopes gets 403 insufficient_scope and the handler never runs', async () => {
    const url = await pier('default');
    ran.length = 0;
    expectScopeChallenge(
      await modernCall(url, 'reader', 'tools/call', { name: 'write', arguments: {} }),
      'notes:write',
    );
    expectScopeChallenge(
      await modernCall(url, 'reader', 'resources/read', { uri: 'notes://secret' }),
      'notes:write',
    );
    expectScopeChallenge(await modernCall(url, 'reader', 'prompts/get', { name: 'draft' }), 'notes:write');
    expect(ran).toEqual([]);
    const allowed = await modernCall(url, 'reader', 'tools/call', { name: 'read', arguments: {} });
    expect(allowed.status).toBe(200);
    expect((await modernCall(url, 'writer', 'tools/call', { name: 'write', arguments: {} })).status).toBe(
      200,
    );
    expect((await modernCall(url, 'writer', 'prompts/get', { name: 'draft' })).status).toBe(200);
    expect(ran).toEqual(['read', 'write', 'draft']);
  });

  it('a caller without the scopes reaches no middleware; one with them goes through every one', async () => {
    const seen: string[] = [];
    const server = createServer(
      defineServer({ name: 'scopes', version: '1.0.0', tools, resources: [secret], prompts: [draft] }),
      {
        handleSignals: false,
        logStream: { write: () => true },
        plugins: [
          { name: 'auth', setup: (ctx) => ctx.setAuthenticator(authenticator(false)) },
          {
            name: 'seen',
            setup: (ctx) =>
              ctx.use('*', (call, next) => {
                seen.push(call.method);
                return next();
              }),
          },
        ],
      },
    ).use('tools/call', async (call, next) => {
      seen.push(`server:${String(call.target?.name)}`);
      return next();
    });
    servers.push(server);
    const url = (await server.listen(httpTransport({ port: 0 }))).url;
    ran.length = 0;
    expectScopeChallenge(
      await modernCall(url, 'reader', 'tools/call', { name: 'write', arguments: {} }),
      'notes:write',
    );
    expectScopeChallenge(await modernCall(url, 'reader', 'prompts/get', { name: 'draft' }), 'notes:write');
    const headers = { ...LEGACY_HEADERS, authorization: 'Bearer reader' };
    expectScopeChallenge(await ask(url, { headers, body: legacyCall('write') }), 'notes:write');
    expect(seen).toEqual([]);
    expect(ran).toEqual([]);
    expect((await modernCall(url, 'reader', 'tools/call', { name: 'read', arguments: {} })).status).toBe(200);
    expect((await ask(url, { headers, body: legacyCall('read') })).status).toBe(200);
    expect(seen).toEqual(['tools/call', 'server:read', 'tools/call', 'server:read']);
    expect(ran).toEqual(['read', 'read']);
  });

  it('2025 stateless, a 2025-03-26 batch, and a 2025 session: 403 before dispatch, the session untouched', async () => {
    const stateless = await pier('default');
    ran.length = 0;
    const headers = { ...LEGACY_HEADERS, authorization: 'Bearer reader' };
    expectScopeChallenge(await ask(stateless, { headers, body: legacyCall('write') }), 'notes:write');
    const batch = `[${legacyCall('read', 3)},${legacyCall('write', 4)}]`;
    expectScopeChallenge(
      await ask(stateless, { headers: { ...headers, 'mcp-protocol-version': '2025-03-26' }, body: batch }),
      'notes:write',
    );
    expect(ran).toEqual([]);

    const sessionful = await pier('default', true);
    const opened = await ask(sessionful, { headers, body: initializeBody() });
    const session = { ...headers, 'mcp-session-id': String(opened.headers['mcp-session-id']) };
    const refused = await ask(sessionful, { headers: session, body: legacyCall('write') });
    expectScopeChallenge(refused, 'notes:write');
    expect(refused.headers['mcp-session-id']).toBe(session['mcp-session-id']);
    const after = await ask(sessionful, { headers: session, body: legacyCall('read') });
    expect(after.status).toBe(200);
    expect(ran).toEqual(['read']);
  });

  it("uses the authenticator's scopeChallenge (granted scopes added, a description) on both eras", async () => {
    const url = await pier('custom');
    const modern = await modernCall(url, 'reader', 'tools/call', { name: 'write', arguments: {} });
    expectScopeChallenge(modern, 'notes:write notes:read');
    expect(modern.headers['www-authenticate']).toContain('error_description="needs notes:write"');
    const legacy = await ask(url, {
      headers: { ...LEGACY_HEADERS, authorization: 'Bearer reader' },
      body: legacyCall('write'),
    });
    expectScopeChallenge(legacy, 'notes:write notes:read');
    expect(legacy.json).toMatchObject({ error: 'insufficient_scope' });
  });

  it('negative control: without an authenticator, declared scopes do not gate anything', async () => {
    const url = await pier('off');
    ran.length = 0;
    const call = modernRequest('tools/call', { name: 'write', arguments: {} });
    expect((await ask(url, { headers: call.headers, body: call.body })).status).toBe(200);
    expect((await ask(url, { headers: LEGACY_HEADERS, body: legacyCall('write') })).status).toBe(200);
    expect(ran).toEqual(['write', 'write']);
  });
});

describe('2026-07-28 requestState is bound to the principal', () => {
  it("another user's valid token cannot resume alice's input round", async () => {
    const url = await pier('default');
    ran.length = 0;
    const first = modernRequest('tools/call', { name: 'confirm', arguments: {} });
    const body = JSON.parse(first.body);
    body.params._meta['io.modelcontextprotocol/clientCapabilities'] = { elicitation: {} };
    const asked = await ask(url, {
      headers: { ...first.headers, authorization: 'Bearer reader' },
      body: JSON.stringify(body),
    });
    const requestState = (asked.json as { result: { requestState: string } }).result.requestState;
    expect(requestState).toBeTruthy();
    body.params.requestState = requestState;
    body.params.inputResponses = { 'elicit-0': { action: 'accept', content: {} } };
    const replay = (user: string) =>
      ask(url, {
        headers: { ...first.headers, authorization: `Bearer ${user}` },
        body: JSON.stringify(body),
      });
    const stolen = await replay('other');
    expect(stolen.json).toMatchObject({ error: { code: -32602 } });
    expect(ran).toEqual([]);
    const own = await replay('reader');
    expect(own.json).toMatchObject({ result: { content: [{ text: 'accept' }] } });
    expect(ran).toEqual(['confirm:accept']);
  });
});
