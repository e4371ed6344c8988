// What a method can do with its context, seen from the SDK's client in both eras.
import type { Client } from '@modelcontextprotocol/client';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineServer, defineTool } from '../declaring/define.js';
import { createServer } from '../server/create-server.js';
import { deferred, ERAS, type Era, REVISION } from '../test-helpers.js';

let clients: Client[] = [];
let logs = '';
afterEach(closeAll);
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
  logs = '';
});

function serve(declaration: Parameters<typeof defineServer>[0]) {
  return createServer(defineServer(declaration), {
    handleSignals: false,
    logLevel: 'debug',
    logStream: { write: (line: string) => (logs += line) },
  });
}

async function client(era: Era, server: ReturnType<typeof serve>): Promise<Client> {
  const connected = (await connect(server, { era: REVISION[era] })).client;
  clients.push(connected);
  return connected;
}

describe.each(Object.keys(ERAS) as Era[])('over %s', (era) => {
  it('aborts ctx.signal when the client cancels the call', async () => {
    const started = deferred();
    const aborted = deferred<string>();
    const server = serve({
      name: 'ctx',
      version: '1',
      tools: [
        defineTool({
          name: 'wait',
          handler: async (_args, ctx) => {
            ctx.signal.addEventListener('abort', () =>
              aborted.resolve(String(ctx.signal.reason ?? 'aborted')),
            );
            started.resolve();
            await aborted.promise;
            return 'never seen';
          },
        }),
      ],
    });
    const c = await client(era, server);
    const controller = new AbortController();
    const call = c.callTool({ name: 'wait', arguments: {} }, { signal: controller.signal });
    await started.promise;
    controller.abort('user gave up');
    await expect(call).rejects.toThrow();
    await expect(aborted.promise).resolves.toBeTypeOf('string');
  });

  it('gives each call the request id and a logger scoped to the tool', async () => {
    const server = serve({
      name: 'ctx',
      version: '1',
      tools: [
        defineTool({
          name: 'whoami',
          handler: (_args, ctx) => {
            ctx.logger.debug('serving', { requestId: ctx.requestId });
            return typeof ctx.requestId;
          },
        }),
      ],
    });
    const result = await (await client(era, server)).callTool({ name: 'whoami', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'number' }]);
    expect(logs).toMatch(/DEBUG \[ctx\/tool:whoami\] serving requestId=\d+\n/);
  });

  it('answers a failing resource read or prompt with a JSON-RPC error, and keeps serving', async () => {
    const server = serve({
      name: 'ctx',
      version: '1',
      resources: [
        {
          name: 'broken',
          uri: 'broken://resource',
          handler: () => {
            throw new Error('disk unplugged');
          },
        },
      ],
      prompts: [
        {
          name: 'broken',
          args: { topic: z.string() },
          handler: () => {
            throw new Error('no inspiration');
          },
        },
      ],
      tools: [defineTool({ name: 'ok', handler: () => 'ok' })],
    });
    const c = await client(era, server);
    await expect(c.readResource({ uri: 'broken://resource' })).rejects.toThrow('disk unplugged');
    await expect(c.getPrompt({ name: 'broken', arguments: { topic: 'x' } })).rejects.toThrow(
      'no inspiration',
    );
    expect((await c.callTool({ name: 'ok', arguments: {} })).content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(logs).toContain('[ctx/resource:broken] resource read failed error="disk unplugged"');
  });
});

describe('sendLog', () => {
  it('sends a log message to a 2025-era client', async () => {
    const server = serve({
      name: 'ctx',
      version: '1',
      tools: [
        defineTool({
          name: 'chatty',
          handler: async (_args, ctx) => {
            await ctx.sendLog('info', { step: 'fetching' });
            return 'done';
          },
        }),
      ],
    });
    const c = await client('legacy', server);
    const received: unknown[] = [];
    c.setNotificationHandler('notifications/message', (notification) => {
      received.push(notification.params);
    });
    await c.setLoggingLevel('debug');
    await c.callTool({ name: 'chatty', arguments: {} });
    expect(received).toEqual([{ level: 'info', data: { step: 'fetching' } }]);
  });
});

describe('sendLog and logging/setLevel', () => {
  it.each(['legacy', 'legacy 2025-06-18'] as const)(
    'sends only messages at or above the level the client set (%s)',
    async (era) => {
      const server = serve({
        name: 'ctx',
        version: '1',
        tools: [
          defineTool({
            name: 'chatty',
            handler: async (_args, ctx) => {
              await ctx.sendLog('debug', 'details');
              await ctx.sendLog('info', 'progressing');
              await ctx.sendLog('warning', 'disk almost full');
              await ctx.sendLog('error', 'disk full');
              return 'done';
            },
          }),
        ],
      });
      const c = await client(era, server);
      const received: unknown[] = [];
      c.setNotificationHandler('notifications/message', (notification) => {
        received.push(notification.params.data);
      });
      await c.setLoggingLevel('warning');
      await c.callTool({ name: 'chatty', arguments: {} });
      expect(received).toEqual(['disk almost full', 'disk full']);
      await c.setLoggingLevel('debug');
      received.length = 0;
      await c.callTool({ name: 'chatty', arguments: {} });
      expect(received).toEqual(['details', 'progressing', 'disk almost full', 'disk full']);
    },
  );
});

describe('closeStream', () => {
  const closing = () =>
    serve({
      name: 'ctx',
      version: '1',
      tools: [defineTool({ name: 'poll', handler: (_args, ctx) => ({ closed: ctx.closeStream() }) })],
    });

  it('does nothing and returns false where no stream can be resumed (stdio)', async () => {
    const result = await (await client('legacy', closing())).callTool({ name: 'poll', arguments: {} });
    expect(result.structuredContent).toEqual({ closed: false });
  });

  it('asks the transport to close the stream of this request, and returns true', async () => {
    const closedFor: unknown[] = [];
    // What a resumable HTTP transport hands the engine with each request (see @pier/transport-http).
    const answer = await closing().engine.handle(
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'poll', arguments: {} } },
      { era: 'legacy', closeStream: () => closedFor.push(3) },
    );
    expect(
      (answer?.message as unknown as { result: { structuredContent: unknown } } | undefined)?.result
        .structuredContent,
    ).toEqual({
      closed: true,
    });
    expect(closedFor).toEqual([3]);
  });
});
