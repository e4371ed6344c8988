// The direct path inside 2025-era sessions (legacy-sessions.ts, LegacyTransport.answerDirect): a tools/call on
// an established session, for a tool core serves directly, is answered without the session's SDK server,
// byte for byte as that server answers it. Each scenario runs against two sessionful servers built from
// the same class: one with the direct path, one where an empty SDK server extension turns it off (core builds no
// direct path when an extension installs handlers on the SDK servers). The SDK's McpServer runs a tool through
// `executeToolHandler`; the direct path never reaches it, which is how a test tells the paths apart.
// Core loads this package with a dynamic import, so this needs the package built (dist/).

import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/server';
import {
  createServer,
  MCPServer,
  type PierPlugin,
  type PierServer,
  Tool,
  type ToolContext,
} from '@pier/core';
import { closeAll, connect } from '@pier/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { type SessionRegistryInit, SessionStore } from './sessions.js';
import { FakeClock } from './test-clock.js';
import { ask, type HttpAnswer, initializeBody, LEGACY_HEADERS, LEGACY_VERSION } from './test-http.js';

/** Holds `slow` calls until released. */
let release: (() => void) | undefined;
let slowStarted: (() => void) | undefined;
const counts = { structured: 0, slow: 0 };

@MCPServer({ name: 'session-direct', version: '1.0.0' })
class SessionServer {
  @Tool({ description: 'Echoes', input: { text: z.string(), times: z.number().int().optional() } })
  echo({ text, times }: { text: string; times?: number | undefined }): string {
    return text.repeat(times ?? 1);
  }

  @Tool({ description: 'Throws', input: { text: z.string() } })
  throws({ text }: { text: string }): string {
    throw new Error(`refused: ${text}`);
  }

  @Tool({ description: 'Error result', input: { text: z.string() } })
  failed({ text }: { text: string }) {
    return { content: [{ type: 'text' as const, text }], isError: true };
  }

  @Tool({ description: 'Structured', input: { text: z.string() } })
  structured({ text }: { text: string }): { text: string; length: number } {
    counts.structured += 1;
    return { text, length: text.length };
  }

  @Tool({ description: 'Uses its context', input: { text: z.string() } })
  withContext({ text }: { text: string }, ctx: ToolContext): string {
    return `${text} ${String(ctx.requestId)}`;
  }

  @Tool({ description: 'No input at all' })
  plain(): string {
    return 'plain';
  }

  @Tool({ description: 'Waits until released', input: { text: z.string() } })
  async slow({ text }: { text: string }): Promise<string> {
    counts.slow += 1;
    await new Promise<void>((resolve) => {
      release = resolve;
      slowStarted?.();
    });
    return text;
  }
}

/** Turns the direct path off (core builds none when an extension installs handlers on the SDK servers). */
const extended: PierPlugin = { name: 'extended', setup: (ctx) => ctx.extendMcpServer({}) };

// Calls the SDK's McpServer ran a tool for (the direct path never does).
const executed = vi.spyOn(
  McpServer.prototype as unknown as { executeToolHandler: () => unknown },
  'executeToolHandler',
);
const quiet = { handleSignals: false, logStream: { write: () => true } } as const;

let direct: PierServer;
let sdk: PierServer;
let directUrl: string;
let sdkUrl: string;

beforeAll(async () => {
  direct = createServer(SessionServer, undefined, quiet);
  sdk = createServer(SessionServer, undefined, { ...quiet, plugins: [extended] });
  directUrl = (await direct.listen({ transport: 'streamable-http', port: 0, sessions: true })).url;
  sdkUrl = (await sdk.listen({ transport: 'streamable-http', port: 0, sessions: true })).url;
});

afterAll(async () => {
  await direct?.close();
  await sdk?.close();
  executed.mockRestore();
});

afterEach(closeAll);

async function openSession(url: string, headers: Record<string, string> = {}): Promise<string> {
  const init = await ask(url, { headers: { ...LEGACY_HEADERS, ...headers }, body: initializeBody() });
  expect(init.status).toBe(200);
  const id = init.headers['mcp-session-id'] as string;
  const initialized = await ask(url, {
    headers: { ...inSession(id), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(initialized.status).toBe(202);
  return id;
}

function inSession(id: string, version: string | undefined = LEGACY_VERSION): Record<string, string> {
  return {
    ...LEGACY_HEADERS,
    'mcp-session-id': id,
    ...(version !== undefined && { 'mcp-protocol-version': version }),
  };
}

function callBody(name: string, args?: Record<string, unknown>, id: number | string = 7): string {
  const params = args === undefined ? { name } : { name, arguments: args };
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
}

/** What the two answers must share: status, content type, the session's own id, the body. */
function expectSameAnswer(fast: HttpAnswer, reference: HttpAnswer, ids: readonly [string, string]): void {
  expect(fast.status).toBe(reference.status);
  expect(fast.headers['content-type']).toBe(reference.headers['content-type']);
  expect(fast.headers['content-length']).toBe(reference.headers['content-length']);
  expect(fast.headers['mcp-session-id'] === undefined).toBe(
    reference.headers['mcp-session-id'] === undefined,
  );
  if (reference.headers['mcp-session-id'] !== undefined) {
    expect([fast.headers['mcp-session-id'], reference.headers['mcp-session-id']]).toEqual(ids);
  }
  expect(fast.text).toBe(reference.text);
}

interface Case {
  readonly name: string;
  readonly body: string;
  /** Headers beside the session's; `version: undefined` sends no MCP-Protocol-Version. */
  readonly version?: string | undefined;
  readonly accept?: string;
  /** Whether the direct path answers it (the SDK server runs no tool). */
  readonly direct: boolean;
}

const cases: Case[] = [
  { name: 'a text result', body: callBody('echo', { text: 'hi', times: 2 }), direct: true },
  { name: 'a string id', body: callBody('echo', { text: 'hi' }, 'req-1'), direct: true },
  { name: 'unknown argument keys (stripped)', body: callBody('echo', { text: 'hi', x: 1 }), direct: true },
  { name: 'a tool that throws', body: callBody('throws', { text: 'no' }), direct: true },
  { name: 'an error result', body: callBody('failed', { text: 'bad' }), direct: true },
  {
    name: 'no MCP-Protocol-Version header',
    body: callBody('echo', { text: 'v' }),
    version: undefined,
    direct: true,
  },
  {
    name: 'an older 2025 revision',
    body: callBody('echo', { text: 'v' }),
    version: '2025-03-26',
    direct: true,
  },
  { name: 'invalid arguments', body: callBody('echo', { text: 5 }), direct: false },
  { name: 'no arguments', body: callBody('echo'), direct: false },
  { name: 'an unknown tool', body: callBody('nope', {}), direct: false },
  { name: 'a tool that reads its context', body: callBody('withContext', { text: 'c' }), direct: false },
  { name: 'a tool without input', body: callBody('plain', { ignored: true }), direct: true },
  { name: 'a tool without input, no arguments', body: callBody('plain'), direct: true },
  {
    name: 'structured content (replayed by the SDK)',
    body: callBody('structured', { text: 'abc' }),
    direct: false,
  },
  {
    name: 'an unsupported protocol version',
    body: callBody('echo', { text: 'v' }),
    version: '1999-01-01',
    direct: false,
  },
  {
    name: 'no text/event-stream in Accept',
    body: callBody('echo', { text: 'v' }),
    accept: 'application/json',
    direct: false,
  },
];

describe('tools/call on a 2025-era session without its SDK server', () => {
  let ids: [string, string];
  beforeAll(async () => {
    ids = [await openSession(directUrl), await openSession(sdkUrl)];
  });

  it.each(cases)('$name: the same answer as the session SDK server', async (case_) => {
    const version = 'version' in case_ ? case_.version : LEGACY_VERSION;
    const headers = (id: string) => ({
      ...inSession(id, version),
      ...(case_.accept !== undefined && { accept: case_.accept }),
    });
    const before = executed.mock.calls.length;
    const fast = await ask(directUrl, { headers: headers(ids[0]), body: case_.body });
    const ran = executed.mock.calls.length - before;
    const reference = await ask(sdkUrl, { headers: headers(ids[1]), body: case_.body });
    expectSameAnswer(fast, reference, ids);
    if (case_.direct) {
      expect(ran).toBe(0);
      // The negative control: the same request reaches the SDK server's tool dispatch without the direct path.
      expect(executed.mock.calls.length - before).toBe(1);
    }
  });

  it('runs a tool whose result the SDK writes only once', async () => {
    const before = counts.structured;
    const answer = await ask(directUrl, {
      headers: inSession(ids[0]),
      body: callBody('structured', { text: 'once' }),
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"structuredContent":{"text":"once","length":4}');
    expect(counts.structured - before).toBe(1);
  });

  it('answers an unknown session 404 and a request without a session 400, as before', async () => {
    for (const headers of [inSession('f0f0f0f0-0000-4000-8000-000000000000'), { ...LEGACY_HEADERS }]) {
      const fast = await ask(directUrl, { headers, body: callBody('echo', { text: 'x' }) });
      const reference = await ask(sdkUrl, { headers, body: callBody('echo', { text: 'x' }) });
      expect(fast.status).toBe(headers['mcp-session-id'] === undefined ? 400 : 404);
      expectSameAnswer(fast, reference, ids);
    }
    // The other server's session is unknown here.
    const foreign = await ask(directUrl, {
      headers: inSession(ids[1]),
      body: callBody('echo', { text: 'x' }),
    });
    expect(foreign.status).toBe(404);
  });
});

describe('SDK clients on a session', () => {
  it.each([
    ['SDK v2, 2025-11-25', 'v2'],
    ['SDK v1', 'v1'],
  ] as const)('%s: direct calls, SDK-served calls and argument errors', async (_name, kind) => {
    const results: unknown[][] = [];
    for (const url of [directUrl, sdkUrl]) {
      const outcomes: unknown[] = [];
      let call: (name: string, args: Record<string, unknown>) => Promise<unknown>;
      let close: () => Promise<void>;
      if (kind === 'v2') {
        const { client } = await connect(url, { era: '2025-11-25' });
        call = (name, args) => client.callTool({ name, arguments: args });
        close = () => client.close();
      } else {
        const client = new V1Client({ name: 'v1', version: '1.0.0' });
        await client.connect(new V1Transport(new URL(url)));
        call = (name, args) => client.callTool({ name, arguments: args });
        close = () => client.close();
      }
      const before = executed.mock.calls.length;
      outcomes.push(await call('echo', { text: 'hello', times: 2 }));
      outcomes.push(await call('throws', { text: 'no' }));
      const ranForDirectTools = executed.mock.calls.length - before;
      outcomes.push(await call('withContext', { text: 'c' }));
      outcomes.push(await call('echo', { text: 5 }).catch((error: Error) => ({ rejected: error.message })));
      outcomes.push(ranForDirectTools);
      await close();
      results.push(outcomes);
    }
    const [fast, reference] = results as [unknown[], unknown[]];
    expect(fast[0]).toEqual({ content: [{ type: 'text', text: 'hellohello' }] });
    expect(fast[2]).toMatchObject({ content: [{ type: 'text' }] });
    expect(JSON.stringify(fast[3])).toContain('Input validation error');
    expect(fast.slice(0, 4)).toEqual(reference.slice(0, 4));
    // Two tools the direct path serves: the session's SDK server ran none of them, the reference both.
    expect([fast[4], reference[4]]).toEqual([0, 2]);
  });
});

describe('session bookkeeping around direct calls', () => {
  it('DELETE while a direct call is in flight ends its response as the SDK server does, and the session', async () => {
    const answers: HttpAnswer[] = [];
    for (const url of [directUrl, sdkUrl]) {
      const id = await openSession(url);
      const started = new Promise<void>((resolve) => {
        slowStarted = resolve;
      });
      const before = executed.mock.calls.length;
      const pending = ask(url, { headers: inSession(id), body: callBody('slow', { text: 'late' }) });
      await started;
      expect(executed.mock.calls.length - before).toBe(url === directUrl ? 0 : 1);
      const deleted = await ask(url, { method: 'DELETE', headers: inSession(id) });
      expect(deleted.status).toBe(200);
      const answer = await pending;
      release?.();
      answers.push(answer);
      const after = await ask(url, { headers: inSession(id), body: callBody('echo', { text: 'x' }) });
      expect(after.status).toBe(404);
    }
    const [fast, reference] = answers as [HttpAnswer, HttpAnswer];
    expect(fast.status).toBe(reference.status);
    expect(fast.headers['content-type']).toBe(reference.headers['content-type']);
    expect(fast.text).toBe(reference.text);
  });

  it('a cancelled direct call gets no answer, as on the SDK server, until the session ends', async () => {
    const answers: HttpAnswer[] = [];
    for (const url of [directUrl, sdkUrl]) {
      const id = await openSession(url);
      const started = new Promise<void>((resolve) => {
        slowStarted = resolve;
      });
      let settled = false;
      const before = executed.mock.calls.length;
      const pending = ask(url, {
        headers: inSession(id),
        body: callBody('slow', { text: 'late' }, 41),
      }).finally(() => {
        settled = true;
      });
      await started;
      expect(executed.mock.calls.length - before).toBe(url === directUrl ? 0 : 1);
      const cancelled = await ask(url, {
        headers: inSession(id),
        body: JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 41 },
        }),
      });
      expect(cancelled.status).toBe(202);
      release?.();
      // Another call on the session is answered meanwhile; the cancelled one still is not.
      const other = await ask(url, { headers: inSession(id), body: callBody('echo', { text: 'x' }) });
      expect(other.status).toBe(200);
      expect(settled).toBe(false);
      expect((await ask(url, { method: 'DELETE', headers: inSession(id) })).status).toBe(200);
      answers.push(await pending);
    }
    const [fast, reference] = answers as [HttpAnswer, HttpAnswer];
    expect(fast.status).toBe(reference.status);
    expect(fast.headers['content-type']).toBe(reference.headers['content-type']);
    expect(fast.text).toBe(reference.text);
  });

  it('a direct call keeps its session alive, and an idle session still expires', async () => {
    const clock = new FakeClock();
    const timeout = 60_000;
    const server = createServer(SessionServer, undefined, quiet);
    try {
      const url = (
        await server.listen({
          transport: 'streamable-http',
          port: 0,
          sessions: true,
          sessionIdleTimeoutMs: timeout,
          sessionRegistry: <T>(init: SessionRegistryInit<T>) => new SessionStore<T>({ ...init, clock }),
        })
      ).url;
      const busy = await openSession(url);
      const idle = await openSession(url);
      clock.advance(timeout * 0.75);
      const before = executed.mock.calls.length;
      const touched = await ask(url, { headers: inSession(busy), body: callBody('echo', { text: 'a' }) });
      expect(touched.status).toBe(200);
      expect(executed.mock.calls.length - before).toBe(0);
      clock.advance(timeout * 0.75);
      // The negative control: the session without a call in the last idle period expired.
      expect(
        (await ask(url, { headers: inSession(idle), body: callBody('echo', { text: 'b' }) })).status,
      ).toBe(404);
      expect(
        (await ask(url, { headers: inSession(busy), body: callBody('echo', { text: 'c' }) })).status,
      ).toBe(200);
      clock.advance(timeout * 2);
      expect(
        (await ask(url, { headers: inSession(busy), body: callBody('echo', { text: 'd' }) })).status,
      ).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('the direct path with an authenticator', () => {
  /** Two callers, each its own principal (clientId). */
  const bearer: PierPlugin = {
    name: 'bearer',
    setup: (ctx) =>
      ctx.setAuthenticator({
        authenticate: (req) => {
          const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
          return token === 'alice' || token === 'bob'
            ? { authInfo: { token, clientId: token, scopes: [] } }
            : {
                refusal: {
                  status: 401,
                  headers: { 'www-authenticate': 'Bearer' },
                  body: { error: 'invalid_token' },
                },
              };
        },
      }),
  };

  it("answers another principal's session 404, and its owner's calls directly", async () => {
    const server = createServer(SessionServer, undefined, { ...quiet, plugins: [bearer] });
    try {
      const url = (await server.listen({ transport: 'streamable-http', port: 0, sessions: true })).url;
      const alice = { authorization: 'Bearer alice' };
      const id = await openSession(url, alice);
      const before = executed.mock.calls.length;
      const own = await ask(url, {
        headers: { ...inSession(id), ...alice },
        body: callBody('echo', { text: 'a' }),
      });
      expect(own.status).toBe(200);
      expect(own.headers['mcp-session-id']).toBe(id);
      expect(executed.mock.calls.length - before).toBe(0);
      const stolen = await ask(url, {
        headers: { ...inSession(id), authorization: 'Bearer bob' },
        body: callBody('echo', { text: 'b' }),
      });
      expect(stolen.status).toBe(404);
      expect(stolen.text).toContain('Session not found');
    } finally {
      await server.close();
    }
  });
});
