// PluginContext.observe: every request and notification, how each ended, and the observer's async context
// around the handler — on both eras, with a throwing observer breaking nothing.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { McpObserver, ObservedOutcome, ObservedRequest, ObservedSession } from './contract.js';
import { defineServer, defineTool } from './define.js';
import { createServer, type PierServer } from './server.js';
import { deferred, ERAS, quiet, REVISION } from './test-helpers.js';
import type { TransportHost } from './transport-contract.js';

const closers: (() => Promise<void>)[] = [];
afterEach(closeAll);
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const span = new AsyncLocalStorage<string>();
const seenInHandler: (string | undefined)[] = [];

function observed(observers: McpObserver[]) {
  return createServer(
    defineServer({
      name: 'observed',
      version: '1.0.0',
      tools: [
        defineTool({
          name: 'traced',
          handler: () => {
            seenInHandler.push(span.getStore());
            return 'ok';
          },
        }),
        defineTool({
          name: 'ask',
          handler: async (_args, ctx) => {
            const answer = await ctx.elicit({
              message: 'Who?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
            });
            return answer.action;
          },
        }),
        defineTool({
          name: 'broken',
          handler: () => {
            throw new Error('boom');
          },
        }),
      ],
      plugins: [
        {
          name: 'observer',
          setup: (ctx) => {
            for (const observer of observers) ctx.observe(observer);
          },
        },
      ],
    }),
    quiet,
  );
}

describe.each(Object.keys(ERAS) as (keyof typeof ERAS)[])('observe() over %s', (era) => {
  it('sees each request with its outcome, and its dispatch runs the handler in the observer’s context', async () => {
    const requests: ObservedRequest[] = [];
    const outcomes: [string, ObservedOutcome][] = [];
    const notifications: string[] = [];
    seenInHandler.length = 0;
    const server = observed([
      {
        onRequest(request, dispatch) {
          requests.push(request);
          span.run(`span:${request.method}`, dispatch);
          return (outcome) => outcomes.push([request.method, outcome]);
        },
        onNotification: (notification) => notifications.push(notification.method),
      },
      {
        onRequest() {
          throw new Error('a broken observer');
        },
      },
    ]);
    const client = (await connect(server, { era: REVISION[era] })).client;
    closers.push(() => client.close());
    await client.callTool({ name: 'traced', arguments: {} });
    const broken = await client.callTool({ name: 'broken', arguments: {} });
    expect(broken.isError).toBe(true);
    const calls = requests.filter((request) => request.method === 'tools/call');
    expect(calls.map((request) => (request.params as { name: string }).name)).toEqual(['traced', 'broken']);
    expect(seenInHandler).toEqual(['span:tools/call']);
    const callOutcomes = outcomes.filter(([method]) => method === 'tools/call').map(([, outcome]) => outcome);
    expect(callOutcomes).toHaveLength(2);
    expect(callOutcomes[1]).toMatchObject({ result: { isError: true } });
    if (era !== 'modern') expect(notifications).toContain('notifications/initialized');
  });
});

it('a server without observers is not wrapped', () => {
  const server = observed([]);
  const mcp = server.createMcpServer();
  expect(Object.hasOwn(mcp, 'connect')).toBe(false);
});

describe('observe(): sessions and the requests a server sends its client', () => {
  it('sees a stdio-like connection open and close once, and an elicitation asked from inside the handler’s context', async () => {
    const sessions: ObservedSession[] = [];
    const ended: ObservedSession[] = [];
    const asked: {
      method: string;
      context: string | undefined;
      session: unknown;
      outcome?: ObservedOutcome;
    }[] = [];
    const server = observed([
      {
        onRequest(request, dispatch) {
          span.run(`span:${request.method}`, dispatch);
          return undefined;
        },
        onSession(session) {
          sessions.push(session);
          return () => ended.push(session);
        },
        onClientRequest(request) {
          const seen: (typeof asked)[number] = {
            method: request.method,
            context: span.getStore(),
            session: request.session,
          };
          asked.push(seen);
          return (outcome) => {
            seen.outcome = outcome;
          };
        },
      },
    ]);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const handle = serveStdio(() => server.createMcpServer(), { transport: serverSide });
    const client = new Client({ name: 'asked', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
    await client.connect(clientSide);
    const answer = await client.callTool({ name: 'ask', arguments: {} });
    expect(answer).toMatchObject({ content: [{ type: 'text', text: 'decline' }] });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ era: undefined, sessionId: undefined });
    expect(asked).toEqual([
      {
        method: 'elicitation/create',
        context: 'span:tools/call',
        session: sessions[0],
        outcome: { result: { action: 'decline' } },
      },
    ]);
    expect(ended).toEqual([]);
    await client.close();
    await handle.close();
    expect(ended).toEqual(sessions);
  });
});

describe('streams (TransportHost.reportStream)', () => {
  it('is absent unless an observer wants streams, so a transport pays nothing then', () => {
    expect(observed([]).reportStream).toBeUndefined();
    expect(observed([{ onRequest: () => undefined }]).reportStream).toBeUndefined();
  });

  it('tells every observer a stream opened, and each once that it closed; a throwing one breaks nothing', () => {
    const seen: string[] = [];
    const server = observed([
      {
        onStream: () => {
          throw new Error('broken observer');
        },
      },
      {
        onStream: (stream) => {
          seen.push(`open ${stream.kind}`);
          return () => seen.push(`close ${stream.kind}`);
        },
      },
    ]);
    const close = server.reportStream?.({ kind: 'listen' });
    expect(seen).toEqual(['open listen']);
    close?.();
    close?.();
    expect(seen).toEqual(['open listen', 'close listen']);
  });

  it('refuses an onStream or onTaskStatus that is not a function', () => {
    for (const field of ['onStream', 'onTaskStatus']) {
      expect(() => observed([{ [field]: 'yes' } as McpObserver])).toThrow(
        expect.objectContaining({ code: 'PLUGIN_INVALID', message: expect.stringContaining(field) }),
      );
    }
  });
});

/** A one-request transport for an SDK server, as a stateless HTTP transport connects one. */
class OneRequest implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly answered = deferred<JSONRPCMessage>();
  async start() {}
  async close() {
    this.onclose?.();
  }
  async send(message: JSONRPCMessage) {
    this.answered.resolve(message);
  }
}

/** The host a transport is given (its direct path above all), captured by a transport that listens nowhere. */
async function hostOf(server: PierServer): Promise<TransportHost> {
  let captured: TransportHost | undefined;
  await server.listen({
    name: 'capture',
    start: async (host) => {
      captured = host;
      return { address: { transport: 'capture', url: 'capture:' }, close: async () => {} };
    },
  });
  closers.push(() => server.close());
  return captured as TransportHost;
}

describe('observe(): stateless tools/call on the direct path (no SDK server)', () => {
  const replayedRuns = { count: 0 };
  const direct = (observers: McpObserver[]) =>
    createServer(
      defineServer({
        name: 'direct',
        version: '1.0.0',
        tools: [
          defineTool({
            name: 'echo',
            input: { text: z.string() },
            handler: ({ text }) => {
              seenInHandler.push(span.getStore());
              return text;
            },
          }),
          defineTool({
            name: 'fails',
            input: { text: z.string() },
            handler: ({ text }) => ({ content: [{ type: 'text' as const, text }], isError: true }),
          }),
          defineTool({
            name: 'annotated',
            input: { text: z.string() },
            // Not plain text: the direct path runs it, the SDK writes its result (a replay).
            handler: ({ text }) => {
              replayedRuns.count += 1;
              return { content: [{ type: 'text' as const, text, annotations: { priority: 1 } }] };
            },
          }),
        ],
        plugins: [
          {
            name: 'observer',
            setup: (ctx) => {
              for (const observer of observers) ctx.observe(observer);
            },
          },
        ],
      }),
      quiet,
    );

  /** What an observer saw of each request: every field, the headers as a record, and the outcome. */
  function recorder() {
    const seen: Record<string, unknown>[] = [];
    const observer: McpObserver = {
      onRequest(request, dispatch) {
        const entry: Record<string, unknown> = {
          ...request,
          headers: request.headers && Object.fromEntries(request.headers),
        };
        seen.push(entry);
        span.run(`span:${request.id}`, dispatch);
        return (outcome) => {
          entry.outcome = outcome;
        };
      },
    };
    return { seen, observer };
  }

  const authInfo = { token: 'not-logged', clientId: 'client-1', scopes: ['read'] };
  const call = (id: number, name: string, text: string) => ({
    message: { jsonrpc: '2.0' as const, id, method: 'tools/call', params: { name, arguments: { text } } },
    request: new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`,
      },
    }),
  });

  /** Serves `message` as the 2025-era stateless transport does: a fresh SDK server for it. */
  async function throughSdk(host: TransportHost, { message, request }: ReturnType<typeof call>) {
    const server = host.createMcpServer({ era: 'legacy', lifetime: 'request', subscriptions: false });
    const transport = new OneRequest();
    await server.connect(transport);
    transport.onmessage?.(message, { request, authInfo });
    const answer = await transport.answered.promise;
    await server.close();
    return answer;
  }

  it.each([
    ['a text result', 'echo'],
    ['an error result', 'fails'],
  ])('%s: every observer sees what an SDK server shows it, the tool inside its dispatch', async (_, tool) => {
    const viaDirect = recorder();
    const viaSdk = recorder();
    const broken: McpObserver = {
      onRequest() {
        throw new Error('a broken observer');
      },
    };
    const host = await hostOf(direct([viaDirect.observer, broken]));
    const reference = await hostOf(direct([viaSdk.observer, broken]));
    const directCalls = host.directToolCalls;
    expect(directCalls).toBeDefined();
    seenInHandler.length = 0;

    const sent = call(7, tool, 'hi');
    const outcome = await directCalls?.call(tool, sent.message.params.arguments, 'legacy', {
      id: 7,
      params: sent.message.params,
      request: sent.request,
      authInfo,
    });
    const answer = await throughSdk(reference, call(7, tool, 'hi'));

    expect(outcome).toEqual({ result: (answer as { result: unknown }).result });
    expect(viaDirect.seen).toHaveLength(1);
    expect(viaDirect.seen).toEqual(viaSdk.seen);
    expect(viaDirect.seen[0]).toMatchObject({
      method: 'tools/call',
      id: 7,
      era: 'legacy',
      authInfo,
      session: undefined,
      headers: { traceparent: expect.any(String) },
    });
    if (tool === 'echo') expect(seenInHandler).toEqual(['span:7', 'span:7']);
  });

  it('a call whose result the SDK writes (a replay) is seen once, with the answer the SDK wrote', async () => {
    const viaDirect = recorder();
    const viaSdk = recorder();
    const host = await hostOf(direct([viaDirect.observer]));
    const reference = await hostOf(direct([viaSdk.observer]));
    const directCalls = host.directToolCalls as NonNullable<TransportHost['directToolCalls']>;
    const before = replayedRuns.count;

    const sent = call(8, 'annotated', 'once');
    const outcome = await directCalls.call('annotated', sent.message.params.arguments, 'legacy', {
      id: 8,
      params: sent.message.params,
      request: sent.request,
      authInfo,
    });
    expect(outcome).toHaveProperty('replay');
    // Reported, but not finished: the SDK has not written the answer yet.
    expect(viaDirect.seen).toHaveLength(1);
    expect(viaDirect.seen[0]).not.toHaveProperty('outcome');
    directCalls.replay(sent.request, (outcome as { replay: unknown }).replay);
    const written = await throughSdk(host, sent);
    await throughSdk(reference, call(8, 'annotated', 'once'));

    expect(replayedRuns.count - before).toBe(2); // once per server: the replay did not run it again
    expect(viaDirect.seen).toHaveLength(1);
    expect(viaDirect.seen).toEqual(viaSdk.seen);
    expect(viaDirect.seen[0]?.outcome).toEqual({ result: (written as { result: unknown }).result });
  });

  it('a call made in a 2025 session is seen in that session, as the session’s SDK server shows it', async () => {
    const sessions: ObservedSession[] = [];
    const viaDirect = recorder();
    const host = await hostOf(
      direct([
        viaDirect.observer,
        {
          onSession: (session) => {
            sessions.push(session);
            return undefined;
          },
        },
      ]),
    );
    const server = host.createMcpServer({ era: 'legacy' });
    const transport = new OneRequest();
    (transport as { sessionId?: string }).sessionId = 'session-1';
    await server.connect(transport);
    // The session's first message (its initialize) opens it for the observers.
    transport.onmessage?.({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'session-client', version: '1.0.0' },
      },
    });
    await transport.answered.promise;
    const sent = call(9, 'echo', 'in a session');
    const outcome = await host.directToolCalls?.call('echo', sent.message.params.arguments, 'legacy', {
      id: 9,
      params: sent.message.params,
      request: sent.request,
      server,
    });
    expect(outcome).toHaveProperty('result');
    expect(sessions).toHaveLength(1);
    const seen = viaDirect.seen.find((request) => request.id === 9);
    expect(seen).toMatchObject({ session: sessions[0], sessionId: 'session-1', era: 'legacy' });
    await server.close();
  });

  it('leaves the call to the SDK when the caller cannot say what the request was', async () => {
    const { observer } = recorder();
    const host = await hostOf(direct([observer]));
    expect(host.directToolCalls?.call('echo', { text: 'hi' }, 'legacy')).toBeUndefined();
    const bare = await hostOf(direct([]));
    expect(bare.directToolCalls?.call('echo', { text: 'hi' }, 'legacy')).toBeInstanceOf(Promise);
  });
});
