// The seams features plug into, each swapped for a non-default implementation through the public API only:
// the transport factory, the authenticator, the extension hook, the 2025 session registry and event store.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type AuthInfo,
  createServer,
  defineServer,
  defineTool,
  type HttpAuthenticator,
  type PierPlugin,
  type PierServer,
} from '@pier/core';
import type { EventStore } from '@pier/core/transport';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionEventStore } from './event-store.js';
import {
  HttpTransportError,
  httpTransport,
  type SessionRegistry,
  type SessionRegistryInit,
} from './index.js';
import { SessionStore } from './sessions.js';
import { ask, initializeBody, LEGACY_HEADERS, modernRequest } from './test-http.js';

let servers: PierServer[] = [];
const clients: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

const seen: (AuthInfo | undefined)[] = [];
const whoami = defineTool({
  name: 'whoami',
  handler: (_args, ctx) => {
    seen.push(ctx.auth);
    return ctx.auth?.clientId ?? 'nobody';
  },
});
const health: PierPlugin = {
  name: 'health',
  setup: (ctx) =>
    ctx.addRoute({
      method: 'GET',
      path: '/health',
      handler: () => new Response('ok'),
    }),
};

function pier(plugins: readonly PierPlugin[] = []): PierServer {
  const server = createServer(defineServer({ name: 'seams', version: '1.0.0', tools: [whoami] }), {
    handleSignals: false,
    logStream: { write: () => true },
    plugins: [health, ...plugins],
  });
  servers.push(server);
  return server;
}

async function modernClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

async function legacyClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'legacy', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

describe('httpTransport(options): the transport is imported, not hunted', () => {
  it("is what listen() takes, as itself or through the 'streamable-http' shortcut", async () => {
    for (const listen of [
      (server: PierServer) => server.listen(httpTransport({ port: 0 })),
      (server: PierServer) => server.listen({ transport: 'streamable-http', port: 0 }),
    ]) {
      const server = pier();
      const address = await listen(server);
      expect(address).toMatchObject({ transport: 'streamable-http', host: '127.0.0.1' });
      const client = await modernClient(address.url);
      expect(await client.callTool({ name: 'whoami', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'nobody' }],
      });
    }
  });

  it('checks its options when called, before anything listens', () => {
    let failure: unknown;
    try {
      httpTransport({ port: -1, path: 'mcp' });
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(HttpTransportError);
    expect(failure).toMatchObject({ code: 'HTTP_OPTIONS_INVALID' });
    expect((failure as HttpTransportError).issues).toHaveLength(2);
  });
});

/** Lets `Bearer alice` and `Bearer bob` in; refuses anything else with a challenge, as plugin-auth will. */
const bearer: HttpAuthenticator & { calls: number } = {
  calls: 0,
  authenticate(req) {
    bearer.calls++;
    const token = /^Bearer (\w+)$/.exec(req.header('authorization') ?? '')?.[1];
    if (token === 'alice' || token === 'bob') {
      return { authInfo: { token, clientId: token, scopes: ['notes'], extra: { sub: `user-${token}` } } };
    }
    return {
      refusal: {
        status: 401,
        headers: { 'www-authenticate': 'Bearer realm="seams"' },
        body: { error: 'invalid_token' },
      },
    };
  },
};
const authPlugin: PierPlugin = { name: 'auth', setup: (ctx) => ctx.setAuthenticator(bearer) };

describe('an authenticator set by a plugin', () => {
  it.each([false, true])(
    'refuses before the body is read, and leaves plugin routes open (sessions: %s)',
    async (sessions) => {
      const server = pier([authPlugin]);
      const { url } = await server.listen(httpTransport({ port: 0, sessions }));
      seen.length = 0;
      // Not JSON at all: were the body read first, this would be a parse error, not the challenge.
      const refused = await ask(url, { method: 'POST', headers: LEGACY_HEADERS, body: '{not json' });
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="seams"');
      expect(refused.headers['cache-control']).toBe('no-store');
      expect(refused.json).toEqual({ error: 'invalid_token' });
      const call = modernRequest('tools/call', { name: 'whoami', arguments: {} });
      expect((await ask(url, { method: 'POST', headers: call.headers, body: call.body })).status).toBe(401);
      expect(seen).toEqual([]);
      const open = await ask(url, { method: 'GET', path: '/health' });
      expect(open.status).toBe(200);
    },
  );

  it('hands who is calling to the handler as ctx.auth, on 2026-07-28, 2025 stateless and 2025 sessions, and SDK v1', async () => {
    seen.length = 0;
    const stateless = pier([authPlugin]);
    const sessionful = pier([authPlugin]);
    const { url: statelessUrl } = await stateless.listen(httpTransport({ port: 0 }));
    const { url: sessionUrl } = await sessionful.listen(httpTransport({ port: 0, sessions: true }));
    const headers = { authorization: 'Bearer alice' };
    const answers = [];
    for (const client of [
      await modernClient(statelessUrl, headers),
      await legacyClient(statelessUrl, headers),
      await legacyClient(sessionUrl, headers),
    ]) {
      answers.push(await client.callTool({ name: 'whoami', arguments: {} }));
    }
    const v1 = new V1Client({ name: 'v1', version: '1.0.0' });
    await v1.connect(new V1Transport(new URL(sessionUrl), { requestInit: { headers } }));
    clients.push(v1);
    answers.push(await v1.callTool({ name: 'whoami', arguments: {} }));
    for (const answer of answers)
      expect(answer).toMatchObject({ content: [{ type: 'text', text: 'alice' }] });
    expect(seen).toHaveLength(4);
    for (const auth of seen)
      expect(auth).toMatchObject({ clientId: 'alice', token: 'alice', scopes: ['notes'] });
  });

  it('binds a 2025 session to its principal: another user gets 404 as for an unknown session', async () => {
    const server = pier([authPlugin]);
    const { url } = await server.listen(httpTransport({ port: 0, sessions: true }));
    const opened = await ask(url, {
      method: 'POST',
      headers: { ...LEGACY_HEADERS, authorization: 'Bearer alice' },
      body: initializeBody(),
    });
    const sessionId = opened.headers['mcp-session-id'] as string;
    expect(sessionId).toBeTruthy();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const asBob = await ask(url, {
      method: 'POST',
      headers: { ...LEGACY_HEADERS, authorization: 'Bearer bob', 'mcp-session-id': sessionId },
      body: list,
    });
    const unknown = await ask(url, {
      method: 'POST',
      headers: { ...LEGACY_HEADERS, authorization: 'Bearer bob', 'mcp-session-id': 'no-such-session' },
      body: list,
    });
    expect(asBob.status).toBe(404);
    expect(asBob.json).toEqual(unknown.json);
    const deleteAsBob = await ask(url, {
      method: 'DELETE',
      headers: { authorization: 'Bearer bob', 'mcp-session-id': sessionId },
    });
    expect(deleteAsBob.status).toBe(404);
    const asAlice = await ask(url, {
      method: 'POST',
      headers: { ...LEGACY_HEADERS, authorization: 'Bearer alice', 'mcp-session-id': sessionId },
      body: list,
    });
    expect(asAlice.status).toBe(200);
    expect(asAlice.text).toContain('whoami');
  });

  it('a second authenticator is a plugin error at createServer (a server has one)', () => {
    const second: PierPlugin = { name: 'auth-2', setup: (ctx) => ctx.setAuthenticator(bearer) };
    expect(() => pier([authPlugin, second])).toThrow(
      /plugin "auth-2" sets an authenticator, but plugin "auth" already set one/,
    );
  });

  it('an authenticator that throws answers 500 with a JSON body and serves nothing', async () => {
    const broken: PierPlugin = {
      name: 'broken-auth',
      setup: (ctx) =>
        ctx.setAuthenticator({
          authenticate() {
            throw new Error('key set unreachable');
          },
        }),
    };
    const server = pier([broken]);
    const { url } = await server.listen(httpTransport({ port: 0 }));
    const call = modernRequest('tools/call', { name: 'whoami', arguments: {} });
    const answer = await ask(url, { method: 'POST', headers: call.headers, body: call.body });
    expect(answer.status).toBe(500);
    expect(answer.json).toMatchObject({ error: { code: -32603 } });
    expect(answer.text).not.toContain('key set unreachable');
  });
});

describe('addCapabilities and addMethod: a plugin serves an extension', () => {
  it('is advertised and served on both eras, with middleware around it', async () => {
    const seen: string[] = [];
    const extension: PierPlugin = {
      name: 'ext',
      setup: (ctx) => {
        ctx.addCapabilities({ experimental: { 'pier.test/ping': { version: 1 } } });
        ctx.addMethod('pier.test/ping', (request) => ({ pong: request.params.n, era: request.era }));
        ctx.use('pier.test/ping', async (request, next) => {
          seen.push(request.era);
          return next();
        });
      },
    };
    const server = pier([extension]);
    const { url } = await server.listen(httpTransport({ port: 0, sessions: true }));
    const legacy = await legacyClient(url);
    expect(legacy.getServerCapabilities()?.experimental).toEqual({ 'pier.test/ping': { version: 1 } });
    const modern = await modernClient(url);
    expect(modern.getServerCapabilities()?.experimental).toEqual({ 'pier.test/ping': { version: 1 } });
    const legacyAnswer = await ask(url, {
      headers: LEGACY_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'pier.test/ping', params: { n: 1 } }),
    });
    expect(legacyAnswer.status).toBe(400); // no session: the sessionful endpoint asks for one
    const request = modernRequest('pier.test/ping', { n: 2 });
    const answer = await ask(url, request);
    expect(answer.json).toMatchObject({ result: { pong: 2, era: 'modern', resultType: 'complete' } });
    expect(seen).toEqual(['modern']);
  });

  it("middleware reads the peer's address and its headers reach the answer, in both eras and modes", async () => {
    const peers: (string | undefined)[] = [];
    const stamp: PierPlugin = {
      name: 'stamp',
      setup: (ctx) =>
        ctx.use('tools/call', async (request, next) => {
          peers.push(request.remoteAddress);
          // Set twice, in two cases: one field goes out, with the later value; the JSON body keeps its own.
          request.setHeader('X-Stamp', 'first');
          request.setHeader('x-stamp', `${request.era}`);
          request.setHeader('X-Second', 'two');
          return next();
        }),
    };
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami' } });
    for (const sessions of [false, true]) {
      const server = pier([stamp]);
      const { url } = await server.listen(httpTransport({ port: 0, sessions }));
      const modern = await ask(url, modernRequest('tools/call', { name: 'whoami' }));
      expect(modern.status).toBe(200);
      expect(modern.headers['x-stamp']).toBe('modern');
      expect(modern.headers['x-second']).toBe('two');
      expect(modern.headers['content-type']).toBe('application/json');
      expect(Number(modern.headers['content-length'])).toBe(Buffer.byteLength(modern.text));
      let sessionId: string | undefined;
      if (sessions) {
        const opened = await ask(url, { headers: LEGACY_HEADERS, body: initializeBody() });
        sessionId = opened.headers['mcp-session-id'] as string;
      }
      const legacy = await ask(url, {
        headers: {
          ...LEGACY_HEADERS,
          'mcp-protocol-version': '2025-11-25',
          ...(sessionId !== undefined && { 'mcp-session-id': sessionId }),
        },
        body: call,
      });
      expect(legacy.status).toBe(200);
      expect(legacy.json).toMatchObject({ id: 2, result: { content: [{ text: 'nobody' }] } });
      expect(legacy.headers['x-stamp']).toBe('legacy');
      expect(legacy.headers['x-second']).toBe('two');
      expect(legacy.headers['content-type']).toBe('application/json');
    }
    expect(peers).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1']);
  });

  it('refuses a method the server serves already, and bad arguments', () => {
    const clash: PierPlugin = { name: 'clash', setup: (ctx) => ctx.addMethod('tools/list', () => ({})) };
    expect(() => pier([clash])).toThrow(/plugin "clash" serves tools\/list, which the server serves itself/);
    const bad: PierPlugin = { name: 'bad-ext', setup: (ctx) => ctx.addMethod('x/y', 42 as never) };
    expect(() => pier([bad])).toThrow(/plugin "bad-ext": addMethod: "handler" must be a function/);
  });
});

describe('the 2025 session registry and event store, replaced', () => {
  it('keeps sessions where sessionRegistry says, and resumes streams from the given event store', async () => {
    const calls: string[] = [];
    const stores = new Map<string, EventStore>();
    const registry = <T>(init: SessionRegistryInit<T>): SessionRegistry<T> => {
      const inner = new SessionStore<T>(init);
      return new Proxy(inner, {
        get(target, key) {
          const value = Reflect.get(target, key);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls.push(String(key));
            return value.apply(target, args);
          };
        },
      });
    };
    const server = pier();
    const { url } = await server.listen(
      httpTransport({
        port: 0,
        sessions: true,
        maxSessions: 7,
        sessionRegistry: registry,
        resumability: {
          eventStore: (sessionId) => {
            const store = new SessionEventStore(100);
            stores.set(sessionId, store);
            return store;
          },
        },
      }),
    );
    const client = await legacyClient(url);
    await client.callTool({ name: 'whoami', arguments: {} });
    expect(calls).toEqual(expect.arrayContaining(['start', 'add', 'get', 'begin', 'end']));
    expect(stores.size).toBe(1);
    expect([...stores.values()][0]).toBeInstanceOf(SessionEventStore);
    expect((stores.values().next().value as SessionEventStore).size).toBeGreaterThan(0);
  });

  it('refuses a sessionRegistry or eventStore that is not a function', () => {
    expect(() =>
      httpTransport({ sessionRegistry: {} as never, resumability: { eventStore: 'x' as never } }),
    ).toThrow(/sessionRegistry must be a function.*\n?.*resumability.eventStore must be a function/s);
  });
});

describe('observe(): every request over HTTP, both eras, with its headers', () => {
  it.each([false, true])('sees tools/call and its outcome (sessions: %s)', async (sessions) => {
    const seenCalls: { era: unknown; traceparent: string | null | undefined; ok: boolean }[] = [];
    const observer: PierPlugin = {
      name: 'observer',
      setup: (ctx) =>
        ctx.observe({
          onRequest(request) {
            if (request.method !== 'tools/call') return undefined;
            return (outcome) =>
              seenCalls.push({
                era: request.era,
                traceparent: request.headers?.get('traceparent'),
                ok: 'result' in outcome,
              });
          },
        }),
    };
    const server = pier([observer]);
    const { url } = await server.listen(httpTransport({ port: 0, sessions }));
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    for (const client of [
      await modernClient(url, { traceparent }),
      await legacyClient(url, { traceparent }),
    ]) {
      await client.callTool({ name: 'whoami', arguments: {} });
    }
    expect(seenCalls).toEqual([
      { era: 'modern', traceparent, ok: true },
      { era: 'legacy', traceparent, ok: true },
    ]);
  });
});
