// PluginContext.observe: every request and notification, how each ended, and the observer's async context
// around the handler — on both eras, with a throwing observer breaking nothing.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpObserver, ObservedOutcome, ObservedRequest, ObservedSession } from './contract.js';
import { defineServer, defineTool } from './define.js';
import { createServer } from './server.js';
import { ERAS, quiet, REVISION } from './test-helpers.js';

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
