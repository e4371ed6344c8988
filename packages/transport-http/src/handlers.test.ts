// The handlers' own contract, called directly (no socket): options checked when the handler is made, the
// server started by the first request and closed by close(), `handle` leaving foreign paths alone.
// Real frameworks and runtimes are in tests/mounting and tests/packaging.
import { createServer, defineServer, defineTool } from '@pier/core';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createFetchHandler } from './fetch.js';
import { createNodeHandler } from './node-handler.js';

const echo = defineTool({
  name: 'echo',
  description: 'Says it back',
  input: { text: z.string() },
  handler: async ({ text }) => text,
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function server(closeHook?: () => void) {
  const created = createServer(
    defineServer({
      name: 'handlers',
      version: '1.0.0',
      tools: [echo],
      plugins: [
        {
          name: 'probe',
          setup(ctx) {
            ctx.addRoute({
              method: 'GET',
              path: '/probe',
              handler: () => Response.json({ state: ctx.state }),
              // Node transports answer from here; a fetch handler must not.
              plain: () => ({ status: 418, headers: {}, body: 'plain' }),
            });
            // The engine hands a middleware's headers over as a flat list; a web Response gets them too.
            ctx.use('tools/call', (request, next) => {
              request.setHeader('X-Probe', 'set');
              return next();
            });
            if (closeHook) ctx.onClose(closeHook);
          },
        },
      ],
    }),
    { handleSignals: false, logLevel: 'error' },
  );
  return created;
}

const call = (path = '/mcp') =>
  new Request(`http://127.0.0.1:3000${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' } },
    }),
  });

describe('options, checked when the handler is made', () => {
  it('refuses what belongs to the listener, naming it', () => {
    expect(() => createNodeHandler(server(), { port: 3000 } as never)).toThrow(
      expect.objectContaining({
        code: 'HTTP_OPTIONS_INVALID',
        issues: [expect.stringMatching(/^port: createNodeHandler does not listen/)],
      }),
    );
  });

  it('refuses a base path that is not one, and a session relay on the fetch handler', () => {
    expect(() => createFetchHandler(server(), { basePath: 'api/' })).toThrow(
      /basePath: must be a path such as \/api .*, got "api\/"/,
    );
    const relay = { claim: async () => true, touch() {}, release() {}, relay: async () => false };
    expect(() => createFetchHandler(server(), { sessionRelay: relay } as never)).toThrow(
      /sessionRelay: relays forward node requests/,
    );
  });
});

describe('the fetch handler', () => {
  it('starts the server on the first request (health turns ready) and drains it on close()', async () => {
    const closed: string[] = [];
    const pier = server(() => closed.push('hook'));
    const handler = createFetchHandler(pier);
    expect(pier.state).toBe('starting');
    const answer = await handler.fetch(call());
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-probe')).toBe('set');
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(await answer.json()).toMatchObject({ result: { content: [{ text: 'hi' }] } });
    expect(pier.state).toBe('ready');
    expect(await (await handler.fetch(new Request('http://127.0.0.1:3000/probe'))).json()).toEqual({
      state: 'ready',
    });
    await handler.close();
    expect(pier.state).toBe('closed');
    expect(closed).toEqual(['hook']);
    const after = await handler.fetch(call());
    expect(after.status).toBe(503);
    expect(await after.json()).toMatchObject({ error: { code: -32000 } });
  });

  it('leaves a path that is not Pier’s to the application (handle), and 404s it with a JSON body (fetch)', async () => {
    const handler = createFetchHandler(server(), { basePath: '/api' });
    closers.push(() => handler.close());
    expect(await handler.handle(call('/elsewhere'))).toBeUndefined();
    expect(await handler.handle(call('/api/nothing'))).toBeUndefined();
    expect((await handler.handle(call('/api/mcp')))?.status).toBe(200);
    const notFound = await handler.fetch(call('/api/nothing'));
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({
      jsonrpc: '2.0',
      error: { message: 'Not Found: /api/nothing' },
    });
  });

  it('names the path in its 404 and 405 as the client sent it, base path included', async () => {
    const handler = createFetchHandler(server(), { basePath: '/api' });
    closers.push(() => handler.close());
    const notAllowed = await handler.fetch(new Request('http://127.0.0.1:3000/api/probe', { method: 'PUT' }));
    expect(notAllowed.status).toBe(405);
    expect(await notAllowed.json()).toMatchObject({
      error: { message: 'Method Not Allowed: PUT /api/probe' },
    });
    const bare = createFetchHandler(server());
    closers.push(() => bare.close());
    const notFound = await bare.fetch(call('/nothing'));
    expect(await notFound.json()).toMatchObject({ error: { message: 'Not Found: /nothing' } });
  });

  it('answers 503 with a JSON body when the server cannot start, and says why in the log only', async () => {
    const pier = server();
    await pier.close();
    const handler = createFetchHandler(pier);
    const answer = await handler.fetch(call());
    expect(answer.status).toBe(503);
    expect(await answer.json()).toMatchObject({
      error: { message: 'Service Unavailable: the server did not start' },
    });
  });
});
