// PluginContext.observe: every request and notification, how each ended, and the observer's async context
// around the handler — on both eras, with a throwing observer breaking nothing.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineServer, defineTool } from '../declaring/define.js';
import { createServer, type PierServer } from '../server/create-server.js';
import { ERAS, quiet, REVISION } from '../test-helpers.js';
import type { TransportHost } from '../transports/host.js';
import { serveTransport } from '../transports/serve.js';
import type { McpObserver, ObservedOutcome, ObservedRequest, ObservedSession } from './api.js';

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
    const handle = await serveTransport(server, serverSide);
    const client = new Client({ name: 'asked', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
    await client.connect(clientSide);
    const answer = await client.callTool({ name: 'ask', arguments: {} });
    expect(answer).toMatchObject({ content: [{ type: 'text', text: 'decline' }] });
    expect(sessions).toHaveLength(1);
    // A stdio connection: no session id; its era is what its first message decided.
    expect(sessions[0]).toMatchObject({ era: 'legacy', sessionId: undefined });
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

/** The host a transport is given, captured by a transport that listens nowhere. */
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

describe('observe(): requests a transport hands the engine (stateless HTTP, a 2025 session)', () => {
  const engineServer = (observers: McpObserver[]) =>
    createServer(
      defineServer({
        name: 'engine',
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
  const traceparent = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;
  const inbound = {
    era: 'legacy' as const,
    headers: (name: string) => (name === 'traceparent' ? traceparent : undefined),
    allHeaders: () => new Headers({ traceparent }),
    authInfo,
  };
  const call = (id: number, name: string, text: string) => ({
    jsonrpc: '2.0' as const,
    id,
    method: 'tools/call',
    params: { name, arguments: { text } },
  });

  it.each([
    ['a text result', 'echo'],
    ['an error result', 'fails'],
  ])(
    '%s: every observer sees the request and how it ended, the tool inside its dispatch',
    async (_, tool) => {
      const { seen, observer } = recorder();
      const broken: McpObserver = {
        onRequest() {
          throw new Error('a broken observer');
        },
      };
      const host = await hostOf(engineServer([observer, broken]));
      seenInHandler.length = 0;
      const answer = await host.engine.handle(call(7, tool, 'hi'), inbound);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({
        method: 'tools/call',
        id: 7,
        era: 'legacy',
        authInfo,
        session: undefined,
        sessionId: undefined,
        headers: { traceparent },
        outcome: { result: (answer?.message as { result: unknown } | undefined)?.result },
      });
      if (tool === 'echo') expect(seenInHandler).toEqual(['span:7']);
      else expect(seen[0]?.outcome).toMatchObject({ result: { isError: true } });
    },
  );

  it('a call made in a 2025 session is seen in that session', async () => {
    const sessions: ObservedSession[] = [];
    const { seen, observer } = recorder();
    const host = await hostOf(
      engineServer([
        observer,
        {
          onSession: (session) => {
            sessions.push(session);
            return undefined;
          },
        },
      ]),
    );
    const connection = host.engine.connect({ sessionId: 'session-1', send: () => {}, transport: 'http' });
    await host.engine.handle(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'session-client', version: '1.0.0' },
        },
      },
      { ...inbound, connection },
    );
    const answer = await host.engine.handle(call(9, 'echo', 'in a session'), { ...inbound, connection });
    expect(answer?.message).toHaveProperty('result');
    expect(sessions).toHaveLength(1);
    expect(seen.find((request) => request.id === 9)).toMatchObject({
      session: sessions[0],
      sessionId: 'session-1',
      era: 'legacy',
    });
    connection.close();
  });
});
