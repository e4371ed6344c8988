// Input-required requests (2026-07-28) on the wire, through core's public API and a real HTTP server:
// every round a client sends is a raw POST, so what the server answers is seen exactly.
import {
  createServer,
  definePrompt,
  defineResource,
  defineServer,
  defineTool,
  type PierPlugin,
  type PierServer,
} from '@pier/core';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { httpTransport } from './index.js';
import { ask, MODERN_VERSION } from './test-http.js';

let servers: PierServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

const runs: string[] = [];
const sideEffects: string[] = [];
const NAME_SCHEMA = {
  type: 'object' as const,
  properties: { name: { type: 'string' as const } },
  required: ['name'],
};

const tools = [
  defineTool({
    name: 'greet',
    input: { greeting: z.string().default('Hello') },
    handler: async ({ greeting }, ctx) => {
      runs.push('greet');
      const stamp = await ctx.once('stamp', () => {
        sideEffects.push('stamp');
        return 'stamped';
      });
      const answer = await ctx.elicit(
        { message: 'What is your name?', requestedSchema: NAME_SCHEMA },
        { key: 'user_name' },
      );
      if (answer.action !== 'accept') return 'no name';
      return `${greeting}, ${String(answer.content?.name)}! (${stamp})`;
    },
  }),
  defineTool({
    name: 'everything',
    handler: async (_args, ctx) => {
      const [name, greeting, roots] = await Promise.all([
        ctx.elicit({ message: 'Name?', requestedSchema: NAME_SCHEMA }, { key: 'user_name' }),
        ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Greet' } }], maxTokens: 50 }),
        ctx.listRoots(),
      ]);
      return { name: name.content?.name, greeting: greeting.content, roots: roots.roots.length };
    },
  }),
  defineTool({
    name: 'two_steps',
    handler: async (_args, ctx) => {
      const first = await ctx.elicit({ message: 'Name?', requestedSchema: NAME_SCHEMA });
      const second = await ctx.elicit({
        message: 'Colour?',
        requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
      });
      return `${String(first.content?.name)} likes ${String(second.content?.color)}`;
    },
  }),
  defineTool({
    name: 'sample_only_if_able',
    handler: async (_args, ctx) => {
      if (!ctx.clientSupports('sampling')) return 'cannot sample';
      const answer = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'x' } }],
        maxTokens: 5,
      });
      return JSON.stringify(answer.content);
    },
  }),
  defineTool({
    name: 'needs_sampling',
    handler: async (_args, ctx) => {
      await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 5 });
      return 'sampled';
    },
  }),
];
const prompts = [
  definePrompt({
    name: 'contextual',
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: 'Context?', requestedSchema: NAME_SCHEMA },
        { key: 'user_context' },
      );
      return `Context: ${String(answer.content?.name)}`;
    },
  }),
];
const resources = [
  defineResource({
    name: 'secret',
    uri: 'app://secret',
    handler: async (_uri, ctx) => {
      const answer = await ctx.elicit({ message: 'Password?', requestedSchema: NAME_SCHEMA }, { key: 'pw' });
      return answer.action === 'accept' ? 'the secret' : 'nothing';
    },
  }),
];

async function start(
  options: { ttlSeconds?: number; maxRounds?: number } = {},
  plugins: PierPlugin[] = [],
): Promise<string> {
  const server = createServer(defineServer({ name: 'asking', version: '1.0.0', tools, prompts, resources }), {
    handleSignals: false,
    logStream: { write: () => true },
    requestState: { key: 'k'.repeat(32), ...options },
    plugins,
  });
  servers.push(server);
  return (await server.listen(httpTransport({ port: 0 }))).url;
}

const ALL_CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} };

interface Rpc {
  readonly status: number;
  readonly result?: Record<string, unknown> | undefined;
  readonly error?: { code: number; message: string; data?: unknown } | undefined;
}

let nextId = 1;
async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = ALL_CAPABILITIES,
  headers: Record<string, string> = {},
): Promise<Rpc> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      },
    },
  });
  const answer = await ask(url, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': method,
      ...(typeof params.name === 'string' && { 'mcp-name': params.name }),
      ...(typeof params.uri === 'string' && { 'mcp-name': params.uri }),
      ...headers,
    },
  });
  const json = answer.json as { result?: Record<string, unknown>; error?: Rpc['error'] } | undefined;
  return { status: answer.status, ...json };
}

const accepted = (content: Record<string, unknown>) => ({ action: 'accept', content });

describe('a tool asking for input', () => {
  it('answers input_required with the question and a state, then completes when re-sent with the answer', async () => {
    const url = await start();
    runs.length = 0;
    sideEffects.length = 0;
    const first = await rpc(url, 'tools/call', { name: 'greet', arguments: { greeting: 'Hi' } });
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        user_name: {
          method: 'elicitation/create',
          params: { message: 'What is your name?', requestedSchema: NAME_SCHEMA },
        },
      },
    });
    const state = first.result?.requestState;
    expect(typeof state).toBe('string');
    const second = await rpc(url, 'tools/call', {
      name: 'greet',
      arguments: { greeting: 'Hi' },
      inputResponses: { user_name: accepted({ name: 'Ada' }) },
      requestState: state,
    });
    expect(second.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Hi, Ada! (stamped)' }],
    });
    // The handler ran once per round; what it wrapped in ctx.once ran once.
    expect(runs).toEqual(['greet', 'greet']);
    expect(sideEffects).toEqual(['stamp']);
  });

  it('asks every question of one round at once (Promise.all), each of its kind', async () => {
    const url = await start();
    const first = await rpc(url, 'tools/call', { name: 'everything', arguments: {} });
    const requests = first.result?.inputRequests as Record<string, { method: string }>;
    expect(
      Object.values(requests)
        .map((request) => request.method)
        .sort(),
    ).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage']);
    const responses: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(requests)) {
      responses[key] =
        request.method === 'elicitation/create'
          ? accepted({ name: 'Ada' })
          : request.method === 'sampling/createMessage'
            ? { role: 'assistant', model: 'm', content: { type: 'text', text: 'Hello!' } }
            : { roots: [{ uri: 'file:///home' }] };
    }
    const done = await rpc(url, 'tools/call', {
      name: 'everything',
      arguments: {},
      inputResponses: responses,
      requestState: first.result?.requestState,
    });
    expect(done.result?.structuredContent).toEqual({
      name: 'Ada',
      greeting: { type: 'text', text: 'Hello!' },
      roots: 1,
    });
  });

  it('takes several rounds, each with a new state carrying the earlier answers', async () => {
    const url = await start();
    const one = await rpc(url, 'tools/call', { name: 'two_steps', arguments: {} });
    expect(Object.keys(one.result?.inputRequests as object)).toEqual(['elicit-0']);
    const two = await rpc(url, 'tools/call', {
      name: 'two_steps',
      arguments: {},
      inputResponses: { 'elicit-0': accepted({ name: 'Ada' }) },
      requestState: one.result?.requestState,
    });
    expect(Object.keys(two.result?.inputRequests as object)).toEqual(['elicit-1']);
    expect(two.result?.requestState).not.toBe(one.result?.requestState);
    // Round three answers only the new question: the first answer travels in the state.
    const three = await rpc(url, 'tools/call', {
      name: 'two_steps',
      arguments: {},
      inputResponses: { 'elicit-1': accepted({ color: 'teal' }) },
      requestState: two.result?.requestState,
    });
    expect(three.result?.content).toEqual([{ type: 'text', text: 'Ada likes teal' }]);
  });

  it('asks again for a missing or invalid answer, and ignores keys it did not ask for', async () => {
    const url = await start();
    for (const inputResponses of [
      { wrong_key: accepted({ name: 'x' }) },
      { user_name: 12345 },
      { user_name: accepted({ name: 7 }) },
    ]) {
      const round = await rpc(url, 'tools/call', { name: 'greet', arguments: {}, inputResponses });
      expect(round.result?.resultType, JSON.stringify(inputResponses)).toBe('input_required');
      expect(Object.keys(round.result?.inputRequests as object)).toEqual(['user_name']);
    }
    const extra = await rpc(url, 'tools/call', {
      name: 'greet',
      arguments: {},
      inputResponses: { user_name: accepted({ name: 'Ada' }), unknown_extra_key: 'x' },
    });
    expect(extra.result?.content).toEqual([{ type: 'text', text: 'Hello, Ada! (stamped)' }]);
  });

  it('refuses a tampered state with -32602, and never runs the handler on it', async () => {
    const url = await start();
    const first = await rpc(url, 'tools/call', { name: 'greet', arguments: {} });
    runs.length = 0;
    const tampered = await rpc(url, 'tools/call', {
      name: 'greet',
      arguments: {},
      inputResponses: { user_name: accepted({ name: 'Ada' }) },
      requestState: `${String(first.result?.requestState)}-TAMPERED`,
    });
    expect(tampered.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
    expect(runs).toEqual([]);
  });

  it('refuses a state signed with another key (another replica without the shared key)', async () => {
    const first = await rpc(await start(), 'tools/call', { name: 'greet', arguments: {} });
    const other = createServer(defineServer({ name: 'asking', version: '1.0.0', tools }), {
      handleSignals: false,
      logStream: { write: () => true },
      requestState: { key: 'z'.repeat(32) },
    });
    servers.push(other);
    const otherUrl = (await other.listen(httpTransport({ port: 0 }))).url;
    const replayed = await rpc(otherUrl, 'tools/call', {
      name: 'greet',
      arguments: {},
      inputResponses: { user_name: accepted({ name: 'Ada' }) },
      requestState: first.result?.requestState,
    });
    expect(replayed.error).toMatchObject({ code: -32602 });
  });

  it('refuses a state minted for another tool or other arguments, and one that expired', async () => {
    const url = await start({ ttlSeconds: 1 });
    const first = await rpc(url, 'tools/call', { name: 'greet', arguments: { greeting: 'Hi' } });
    const state = first.result?.requestState;
    for (const [name, args] of [
      ['greet', { greeting: 'Bye' }],
      ['two_steps', {}],
    ] as const) {
      const replayed = await rpc(url, 'tools/call', {
        name,
        arguments: args,
        inputResponses: { user_name: accepted({ name: 'Ada' }) },
        requestState: state,
      });
      // The SDK reports what a tool throws as a tool error: the state is refused either way.
      expect(replayed.result, name).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Invalid or expired requestState' }],
      });
    }
    // On another method the SDK's own check refuses it before any handler, as a protocol error.
    const onRead = await rpc(url, 'resources/read', {
      uri: 'app://secret',
      inputResponses: { pw: accepted({ name: 'x' }) },
      requestState: state,
    });
    expect(onRead.error, 'another method').toMatchObject({ code: -32602 });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const expired = await rpc(url, 'tools/call', {
      name: 'greet',
      arguments: { greeting: 'Hi' },
      inputResponses: { user_name: accepted({ name: 'Ada' }) },
      requestState: state,
    });
    expect(expired.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
  });

  it('stops after maxRounds', async () => {
    const url = await start({ maxRounds: 1 });
    const one = await rpc(url, 'tools/call', { name: 'two_steps', arguments: {} });
    const two = await rpc(url, 'tools/call', {
      name: 'two_steps',
      arguments: {},
      inputResponses: { 'elicit-0': accepted({ name: 'Ada' }) },
      requestState: one.result?.requestState,
    });
    expect(two.result).toMatchObject({ isError: true });
    expect(JSON.stringify(two.result)).toContain('more than 1 input rounds');
  });
});

describe('capabilities', () => {
  it('a question the request did not declare a capability for is -32021 with HTTP 400, naming it', async () => {
    const url = await start();
    const refused = await rpc(url, 'tools/call', { name: 'needs_sampling', arguments: {} }, {});
    expect(refused.status).toBe(400);
    expect(refused.error?.code).toBe(-32021);
    expect(refused.error?.data).toMatchObject({ requiredCapabilities: { sampling: {} } });
  });

  it('a handler that checks clientSupports degrades instead', async () => {
    const url = await start();
    const without = await rpc(
      url,
      'tools/call',
      { name: 'sample_only_if_able', arguments: {} },
      { elicitation: {} },
    );
    expect(without.result?.content).toEqual([{ type: 'text', text: 'cannot sample' }]);
    const withSampling = await rpc(url, 'tools/call', { name: 'sample_only_if_able', arguments: {} });
    expect(withSampling.result?.resultType).toBe('input_required');
  });
});

describe('prompts and resources ask the same way', () => {
  it('prompts/get and resources/read answer input_required, then complete', async () => {
    const url = await start();
    const prompt = await rpc(url, 'prompts/get', { name: 'contextual' });
    expect(Object.keys(prompt.result?.inputRequests as object)).toEqual(['user_context']);
    const promptDone = await rpc(url, 'prompts/get', {
      name: 'contextual',
      inputResponses: { user_context: accepted({ name: 'work' }) },
      requestState: prompt.result?.requestState,
    });
    expect(JSON.stringify(promptDone.result?.messages)).toContain('Context: work');
    const read = await rpc(url, 'resources/read', { uri: 'app://secret' });
    expect(Object.keys(read.result?.inputRequests as object)).toEqual(['pw']);
    const readDone = await rpc(url, 'resources/read', {
      uri: 'app://secret',
      inputResponses: { pw: accepted({ name: 'hunter2' }) },
      requestState: read.result?.requestState,
    });
    expect(readDone.result?.contents).toEqual([
      { uri: 'app://secret', mimeType: 'text/plain', text: 'the secret' },
    ]);
  });
});

describe('bound to the principal', () => {
  it('a state minted for one user is refused for another (-32602), and accepted for the same user', async () => {
    const bearer: PierPlugin = {
      name: 'auth',
      setup: (ctx) =>
        ctx.setAuthenticator({
          authenticate(req) {
            const token = /^Bearer (\w+)$/.exec(req.header('authorization') ?? '')?.[1];
            return token === undefined
              ? { refusal: { status: 401, body: { error: 'invalid_token' } } }
              : { authInfo: { token, clientId: token, scopes: [] } };
          },
        }),
    };
    const url = await start({}, [bearer]);
    const asAlice = { authorization: 'Bearer alice' };
    const first = await rpc(url, 'tools/call', { name: 'greet', arguments: {} }, ALL_CAPABILITIES, asAlice);
    const retry = {
      name: 'greet',
      arguments: {},
      inputResponses: { user_name: accepted({ name: 'Ada' }) },
      requestState: first.result?.requestState,
    };
    const asBob = await rpc(url, 'tools/call', retry, ALL_CAPABILITIES, { authorization: 'Bearer bob' });
    expect(asBob.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
    const again = await rpc(url, 'tools/call', retry, ALL_CAPABILITIES, asAlice);
    expect(again.result?.content).toEqual([{ type: 'text', text: 'Hello, Ada! (stamped)' }]);
  });
});
