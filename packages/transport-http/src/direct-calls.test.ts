// The direct path for stateless tools/call (core's direct-calls.ts, mcp-endpoint.ts's directCall) must
// answer byte for byte what the SDK path answers. Each request below goes to two servers built from the
// same class: one where the direct path is on, one where an empty extension turns it off (an extension
// installs handlers on each SDK server, so core builds no direct path). Status, Content-Type and body must
// be equal; the SDK servers built are counted to show which path answered.
// Core loads this package with a dynamic import, so this needs the package built (dist/).
import { McpServer } from '@modelcontextprotocol/server';
import {
  createServer,
  MCPServer,
  type PierPlugin,
  type PierServer,
  Tool,
  type ToolContext,
} from '@pier/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { ask, LEGACY_HEADERS, modernRequest } from './test-http.js';

const calls = { structured: 0 };

@MCPServer({ name: 'direct', version: '2.0.0', title: 'Direct', description: 'A server for the direct path' })
class DirectServer {
  @Tool({ description: 'Echoes', input: { text: z.string(), times: z.number().int().optional() } })
  echo({ text, times }: { text: string; times?: number | undefined }): string {
    return text.repeat(times ?? 1);
  }

  @Tool({ description: 'Throws', input: { text: z.string() } })
  throws({ text }: { text: string }): string {
    throw new Error(`refused: ${text}`);
  }

  @Tool({ description: 'Structured', input: { text: z.string() } })
  structured({ text }: { text: string }): { text: string; length: number } {
    calls.structured += 1;
    return { text, length: text.length };
  }

  @Tool({ description: 'Nothing', input: {} })
  nothing(_args: Record<string, never>): undefined {
    return undefined;
  }

  @Tool({ description: 'Error result', input: { text: z.string() } })
  failed({ text }: { text: string }) {
    return { content: [{ type: 'text' as const, text }], isError: true };
  }

  @Tool({ description: 'Annotated', input: { text: z.string() } })
  annotated({ text }: { text: string }) {
    return { content: [{ type: 'text' as const, text, annotations: { priority: 1 } }] };
  }

  @Tool({ description: 'No input at all' })
  plain(): string {
    return 'plain';
  }

  @Tool({ description: 'No input, looks at the arguments it is given' })
  plainArgs(args: Record<string, unknown>): string {
    return `args ${JSON.stringify(args)}`;
  }

  @Tool({ description: 'No input, uses its context' })
  plainContext(_args: Record<string, never>, ctx: ToolContext): string {
    return `context ${ctx.requestId}`;
  }

  @Tool({ description: 'Uses its context', input: { text: z.string() } })
  withContext({ text }: { text: string }, ctx: ToolContext): string {
    return `${text} ${ctx.requestId}`;
  }
}

/**
 * Turns the direct path off (an extension installs handlers on each SDK server, so core builds no direct
 * path), and counts the calls the reference dispatched.
 */
const observed: PierPlugin = {
  name: 'observed',
  setup: (ctx) => {
    ctx.extendMcpServer({});
    ctx.observe({
      onRequest: () => {
        dispatched += 1;
        return undefined;
      },
    });
  },
};

let direct: PierServer;
let sdk: PierServer;
let directUrl: string;
let sdkUrl: string;
// The SDK servers the direct server builds (the reference server's observer wraps `connect` per instance,
// so the reference is counted by what its observer sees dispatched).
const connect = vi.spyOn(McpServer.prototype, 'connect');
let dispatched = 0;

beforeAll(async () => {
  const quiet = { handleSignals: false, logStream: { write: () => true } } as const;
  direct = createServer(DirectServer, undefined, quiet);
  sdk = createServer(DirectServer, undefined, { ...quiet, plugins: [observed] });
  directUrl = (await direct.listen({ transport: 'streamable-http', port: 0 })).url;
  sdkUrl = (await sdk.listen({ transport: 'streamable-http', port: 0 })).url;
});

afterAll(async () => {
  await direct?.close();
  await sdk?.close();
  connect.mockRestore();
});

interface Case {
  readonly name: string;
  readonly body: string;
  readonly headers: Record<string, string>;
  /** Whether the direct path answers it alone (no SDK server). */
  readonly direct: boolean;
  /** SDK servers built for it otherwise: 0 for the SDK's refusals before dispatch. */
  readonly sdkServers?: number;
}

function legacy(params: Record<string, unknown>, id: number | string = 7): Omit<Case, 'name' | 'direct'> {
  return {
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
    headers: { ...LEGACY_HEADERS, 'mcp-protocol-version': '2025-11-25' },
  };
}

function modern(params: Record<string, unknown>, id: number | string = 7): Omit<Case, 'name' | 'direct'> {
  return modernRequest('tools/call', params, id);
}

const cases: Case[] = [];
for (const [era, build] of [
  ['2025', legacy],
  ['2026-07-28', modern],
] as const) {
  const add = (name: string, isDirect: boolean, request: Omit<Case, 'name' | 'direct'>) =>
    cases.push({ name: `${era}: ${name}`, direct: isDirect, ...request });
  add('a text result', true, build({ name: 'echo', arguments: { text: 'hi', times: 2 } }));
  add('a string id', true, build({ name: 'echo', arguments: { text: 'hi' } }, 'req-1'));
  add('unknown argument keys (stripped)', true, build({ name: 'echo', arguments: { text: 'hi', x: 1 } }));
  add('a tool that throws', true, build({ name: 'throws', arguments: { text: 'no' } }));
  add('an empty result', true, build({ name: 'nothing', arguments: {} }));
  add('an error result', true, build({ name: 'failed', arguments: { text: 'bad' } }));
  add('invalid arguments', false, build({ name: 'echo', arguments: { text: 5 } }));
  add('no arguments', false, build({ name: 'echo' }));
  add('an unknown tool', false, build({ name: 'nope', arguments: {} }));
  add('a tool that reads its context', false, build({ name: 'withContext', arguments: { text: 'c' } }));
  add('a tool without input', true, build({ name: 'plain', arguments: {} }));
  add('a tool without input, no arguments', true, build({ name: 'plain' }));
  add(
    'a tool without input, given arguments (not passed on)',
    true,
    build({ name: 'plainArgs', arguments: { x: 1 } }),
  );
  add('a tool without input that reads its context', false, build({ name: 'plainContext', arguments: {} }));
  add(
    'structured content (replayed by the SDK)',
    false,
    build({ name: 'structured', arguments: { text: 'abc' } }),
  );
  add(
    'annotated content (replayed by the SDK)',
    false,
    build({ name: 'annotated', arguments: { text: 'a' } }),
  );
}
const notAccepted = legacy({ name: 'echo', arguments: { text: 'hi' } });
cases.push({
  name: '2025: no text/event-stream in Accept',
  direct: false,
  body: notAccepted.body,
  headers: { ...notAccepted.headers, accept: 'application/json' },
});
/** A 2026-07-28 echo call whose `_meta` also carries `extra`. */
const withMeta = (name: string, isDirect: boolean, extra: Record<string, unknown>) => {
  const call = JSON.parse(modern({ name: 'echo', arguments: { text: 'hi' } }).body);
  Object.assign(call.params._meta, extra);
  cases.push({
    name,
    direct: isDirect,
    body: JSON.stringify(call),
    headers: modern({ name: 'echo' }).headers,
  });
};
withMeta('2026-07-28: a progress token', false, { progressToken: 'p1' });
withMeta('2026-07-28: trace context in _meta', true, {
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  tracestate: 'vendor=1',
});
withMeta('2026-07-28: a traceparent that is not a string', false, { traceparent: 42 });
const mismatch = modern({ name: 'echo', arguments: { text: 'hi' } });
cases.push({
  name: '2026-07-28: Mcp-Name names another tool',
  direct: false,
  sdkServers: 0,
  body: mismatch.body,
  headers: { ...mismatch.headers, 'mcp-name': 'throws' },
});
cases.push({
  name: '2026-07-28: no Mcp-Method',
  direct: false,
  sdkServers: 0,
  body: mismatch.body,
  headers: Object.fromEntries(Object.entries(mismatch.headers).filter(([key]) => key !== 'mcp-method')),
});
const otherVersion = JSON.parse(mismatch.body);
otherVersion.params._meta['io.modelcontextprotocol/protocolVersion'] = '2026-01-01';
cases.push({
  name: '2026-07-28: the envelope names another revision',
  direct: false,
  sdkServers: 0,
  body: JSON.stringify(otherVersion),
  headers: mismatch.headers,
});

describe('stateless tools/call without an SDK server per request', () => {
  it.each(cases)('$name: the same answer as the SDK path', async (case_) => {
    const { body, headers, direct: isDirect, sdkServers = 1 } = case_;
    const before = connect.mock.calls.length;
    const fast = await ask(directUrl, { headers, body });
    const servers = connect.mock.calls.length - before;
    const seen = dispatched;
    const reference = await ask(sdkUrl, { headers, body });
    expect(fast.status).toBe(reference.status);
    expect(fast.headers['content-type']).toBe(reference.headers['content-type']);
    expect(fast.text).toBe(reference.text);
    // The direct path builds no SDK server, where the reference dispatched the call through its SDK
    // server; everything else is served by the SDK as before (its refusals before dispatch build none).
    if (isDirect) expect([servers, dispatched - seen]).toEqual([0, 1]);
    else expect(servers).toBe(sdkServers);
  });

  it('serves 2026-07-28 calls directly with sessions on, and leaves 2025 calls to their sessions', async () => {
    const sessionful = createServer(DirectServer, undefined, {
      handleSignals: false,
      logStream: { write: () => true },
    });
    try {
      const url = (await sessionful.listen({ transport: 'streamable-http', port: 0, sessions: true })).url;
      const call = modern({ name: 'echo', arguments: { text: 'hi' } });
      const before = connect.mock.calls.length;
      const fast = await ask(url, call);
      expect(connect.mock.calls.length - before).toBe(0);
      expect(fast.text).toBe((await ask(sdkUrl, call)).text);
      // Without a session a 2025-era call is refused by the sessionful transport, as before.
      const refused = await ask(url, legacy({ name: 'echo', arguments: { text: 'hi' } }));
      expect(refused.status).toBe(400);
    } finally {
      await sessionful.close();
    }
  });

  it('validates each new envelope with the SDK, and serves a known one directly', async () => {
    const call = JSON.parse(modern({ name: 'echo', arguments: { text: 'hi' } }).body);
    call.params._meta['io.modelcontextprotocol/clientInfo'] = { name: 'other', version: 2 };
    const { headers } = modern({ name: 'echo' });
    const bad = await ask(directUrl, { headers, body: JSON.stringify(call) });
    expect(bad.status).toBe(400);
    expect(bad.text).toBe((await ask(sdkUrl, { headers, body: JSON.stringify(call) })).text);
    call.params._meta['io.modelcontextprotocol/clientInfo'] = { name: 'other', version: '2', title: 'Other' };
    for (let i = 0; i < 2; i += 1) {
      const before = connect.mock.calls.length;
      const fast = await ask(directUrl, { headers, body: JSON.stringify(call) });
      expect(connect.mock.calls.length - before).toBe(0);
      expect(fast.text).toBe((await ask(sdkUrl, { headers, body: JSON.stringify(call) })).text);
    }
    // Right after a known envelope, one that differs from it only in a value's type is still the SDK's to refuse.
    call.params._meta['io.modelcontextprotocol/clientInfo'] = { name: 'other', version: 2, title: 'Other' };
    const again = await ask(directUrl, { headers, body: JSON.stringify(call) });
    expect(again.status).toBe(400);
    expect(again.text).toBe((await ask(sdkUrl, { headers, body: JSON.stringify(call) })).text);
  });

  it('runs a tool once when the SDK writes its result', async () => {
    const before = calls.structured;
    const answer = await ask(directUrl, modern({ name: 'structured', arguments: { text: 'once' } }));
    expect(answer.status).toBe(200);
    expect((answer.json as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({
      text: 'once',
      length: 4,
    });
    expect(calls.structured - before).toBe(1);
  });
});

describe('the direct path with an authenticator', () => {
  const TOKEN = 'direct-path-test-token';
  let echoes = 0;
  @MCPServer({ name: 'guarded', version: '1.0.0' })
  class GuardedServer {
    @Tool({ description: 'Echoes', input: { text: z.string() } })
    echo({ text }: { text: string }): string {
      echoes += 1;
      return text;
    }

    @Tool({ description: 'Needs a scope', input: { text: z.string() }, scopes: ['write'] })
    guarded({ text }: { text: string }): string {
      return text;
    }
  }
  /** A bearer check as an auth plugin makes one: before the body is read, granting the scope `read`. */
  const bearer: PierPlugin = {
    name: 'bearer',
    setup: (ctx) =>
      ctx.setAuthenticator({
        authenticate: (req) =>
          req.headers.authorization === `Bearer ${TOKEN}`
            ? { authInfo: { token: TOKEN, clientId: 'tester', scopes: ['read'] } }
            : {
                refusal: {
                  status: 401,
                  headers: { 'www-authenticate': 'Bearer' },
                  body: { error: 'invalid_token' },
                },
              },
      }),
  };
  let guarded: PierServer;
  let url: string;
  beforeAll(async () => {
    guarded = createServer(GuardedServer, undefined, {
      handleSignals: false,
      logStream: { write: () => true },
      plugins: [bearer],
    });
    url = (await guarded.listen({ transport: 'streamable-http', port: 0 })).url;
  });
  afterAll(async () => {
    await guarded?.close();
  });

  it('serves an authenticated call to a tool without scopes directly, in both eras', async () => {
    for (const request of [
      modern({ name: 'echo', arguments: { text: 'hi' } }),
      legacy({ name: 'echo', arguments: { text: 'hi' } }),
    ]) {
      const before = connect.mock.calls.length;
      const answer = await ask(url, {
        ...request,
        headers: { ...request.headers, authorization: `Bearer ${TOKEN}` },
      });
      expect(answer.status).toBe(200);
      expect(JSON.stringify(answer.json)).toContain('"text":"hi"');
      expect(connect.mock.calls.length - before).toBe(0);
    }
  });

  it('refuses an unauthenticated call before it reaches the tool (the direct path never runs it)', async () => {
    const before = echoes;
    const request = modern({ name: 'echo', arguments: { text: 'hi' } });
    const refused = await ask(url, request);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer');
    const wrong = await ask(url, {
      ...request,
      headers: { ...request.headers, authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(401);
    expect(echoes).toBe(before);
  });

  it('leaves a tool with scopes to the SDK, which challenges a caller without them (403)', async () => {
    const request = modern({ name: 'guarded', arguments: { text: 'hi' } });
    const answer = await ask(url, {
      ...request,
      headers: { ...request.headers, authorization: `Bearer ${TOKEN}` },
    });
    expect(answer.status).toBe(403);
    expect(answer.headers['www-authenticate']).toContain('insufficient_scope');
  });
});
