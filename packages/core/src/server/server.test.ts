// listen() and close() in-process: stdio over in-memory streams, the lifecycle a plugin sees, misuse.
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/client';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineServer, defineTool } from '../declaring/define.js';
import { PierError } from '../errors.js';
import type { PierPlugin, PluginContext } from '../plugins/api.js';
import { deferred } from '../test-helpers.js';
import { type CreateServerOptions, createServer, type PierServer } from './create-server.js';
import type { LifecycleState } from './lifecycle.js';

let logs = '';
const quiet: CreateServerOptions = {
  handleSignals: false,
  logStream: { write: (line: string) => (logs += line) },
};
const servers: PierServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  logs = '';
});

/** `wait` blocks until `gate` resolves, after resolving `waiting`. */
let waiting = deferred();
let gate = deferred();

function serverWith(plugins: PierPlugin[] = [], options: CreateServerOptions = quiet): PierServer {
  waiting = deferred();
  gate = deferred();
  const tools = [
    defineTool({ name: 'hello', input: { name: z.string() }, handler: ({ name }) => `Hello, ${name}` }),
    defineTool({
      name: 'wait',
      handler: async () => {
        waiting.resolve();
        await gate.promise;
        return 'waited';
      },
    }),
  ];
  const server = createServer(defineServer({ name: 'weather', version: '1.0.0', tools, plugins }), options);
  servers.push(server);
  return server;
}

/** Listens on in-memory stdio and connects the SDK's client to it. */
async function listenAndConnect(server: PierServer) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const address = await server.listen({ stdin, stdout });
  const client = new Client({ name: 'test', version: '1.0.0' });
  // A stdio server transport is a line-delimited JSON transport: reversed, it is the client's end.
  await client.connect(new StdioServerTransport(stdout, stdin));
  return { address, client, stdin };
}

function witness(): PierPlugin & { seen: string[]; ctx?: PluginContext } {
  const plugin: PierPlugin & { seen: string[]; ctx?: PluginContext } = {
    name: 'witness',
    seen: [],
    setup(ctx) {
      plugin.ctx = ctx;
      plugin.seen.push(`setup:${ctx.state}`);
      ctx.onStateChange((state, previous) => plugin.seen.push(`${previous}->${state}`));
    },
  };
  return plugin;
}

function stateReached(server: PierServer, state: LifecycleState): Promise<void> {
  return new Promise((resolve) => {
    if (server.state === state) resolve();
    server.onStateChange((next) => next === state && resolve());
  });
}

describe('listen over stdio', () => {
  it('resolves with the address and serves the tools', async () => {
    const server = serverWith();
    const { address, client } = await listenAndConnect(server);
    expect(address).toEqual({ transport: 'stdio', url: 'stdio:' });
    expect(server.address).toEqual(address);
    const result = await client.callTool({ name: 'hello', arguments: { name: 'Ada' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada' }]);
    expect(logs).toMatch(/ INFO {2}\[weather\] listening transport=stdio url=stdio:\n/);
  });

  it('shows a plugin the lifecycle in order: starting, ready, draining, closed', async () => {
    const plugin = witness();
    const server = serverWith([plugin]);
    expect(server.state).toBe('starting');
    await listenAndConnect(server);
    expect(plugin.ctx?.state).toBe('ready');
    await server.close();
    expect(plugin.seen).toEqual(['setup:starting', 'starting->ready', 'ready->draining', 'draining->closed']);
    expect(server.state).toBe('closed');
  });

  it('closes when the client ends stdin', async () => {
    const server = serverWith();
    const { stdin } = await listenAndConnect(server);
    stdin.end();
    await stateReached(server, 'closed');
    expect(logs).toContain('stdin ended: closing');
  });

  it('lets running calls finish before closing', async () => {
    const server = serverWith();
    const { client } = await listenAndConnect(server);
    const call = client.callTool({ name: 'wait', arguments: {} });
    await waiting.promise;
    let closed = false;
    const closing = server.close().then(() => {
      closed = true;
    });
    await stateReached(server, 'draining');
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    gate.resolve();
    expect((await call).content).toEqual([{ type: 'text', text: 'waited' }]);
    await closing;
    expect(server.state).toBe('closed');
  });

  it('refuses to listen twice', async () => {
    const server = serverWith();
    await listenAndConnect(server);
    const error = await server.listen().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PierError);
    expect(error).toMatchObject({ code: 'ALREADY_LISTENING', message: expect.stringContaining('stdio:') });
  });

  it('refuses an unknown transport, naming the valid ones, and can still listen after', async () => {
    const server = serverWith();
    const error = await server.listen({ transport: 'carrier-pigeon' } as never).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'UNKNOWN_TRANSPORT',
      message: expect.stringMatching(/"carrier-pigeon".*'stdio', 'streamable-http'/),
    });
    await expect(listenAndConnect(server)).resolves.toBeDefined();
  });

  it('takes a transport object itself, not inside { transport }, and says how to pass it', async () => {
    const server = serverWith();
    let started = false;
    const transport = {
      name: 'custom',
      start: async () => {
        started = true;
        throw new Error('not reached');
      },
    };
    const error = await server.listen({ transport } as never).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'UNKNOWN_TRANSPORT',
      message: expect.stringContaining('listen(httpTransport({ port }))'),
    });
    expect(started).toBe(false);
  });

  it('reports every bad createServer option at once, each with its path', () => {
    let error: unknown;
    try {
      createServer(defineServer({ name: 'bad-options', version: '1.0.0' }), {
        logLevel: 'loud',
        pageSize: 0,
        requestState: { key: 'short', ttlSeconds: -1 },
      } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PierError);
    expect(error).toMatchObject({
      code: 'OPTIONS_INVALID',
      issues: [
        'logLevel must be debug, info, warn or error (got "loud")',
        'requestState.key must be at least 32 bytes long (it has 5); generate one with: openssl rand -base64 48',
        'requestState.ttlSeconds must be a whole number > 0 (got -1)',
        'pageSize must be a whole number > 0 (got 0)',
      ],
    });
    expect((error as Error).message).toMatch(/^createServer: 4 problems:\n {2}- logLevel/);
    expect((error as Error).message).not.toContain('short');
  });

  it('refuses to listen once closed', async () => {
    const server = serverWith();
    await server.close();
    await expect(server.listen()).rejects.toMatchObject({ code: 'SERVER_CLOSED' });
  });
});

describe('close', () => {
  it('is idempotent: every call returns the same promise and the lifecycle moves once', async () => {
    const plugin = witness();
    const server = serverWith([plugin]);
    await listenAndConnect(server);
    const first = server.close();
    expect(server.close()).toBe(first);
    await first;
    expect(server.close()).toBe(first);
    expect(plugin.seen.filter((entry) => entry.endsWith('->closed'))).toHaveLength(1);
  });

  it('works before listen: starting, draining, closed', async () => {
    const plugin = witness();
    const server = serverWith([plugin]);
    await server.close();
    expect(plugin.seen).toEqual(['setup:starting', 'starting->draining', 'draining->closed']);
  });

  it('rejects a bad drain delay', async () => {
    const server = serverWith();
    await expect(server.close({ drainDelayMs: -1 })).rejects.toMatchObject({ code: 'OPTIONS_INVALID' });
  });

  it('adds signal listeners while listening and removes them on close', async () => {
    const before = { term: process.listenerCount('SIGTERM'), int: process.listenerCount('SIGINT') };
    const server = serverWith([], { ...quiet, handleSignals: true });
    await listenAndConnect(server);
    expect(process.listenerCount('SIGTERM')).toBe(before.term + 1);
    expect(process.listenerCount('SIGINT')).toBe(before.int + 1);
    await server.close();
    expect(process.listenerCount('SIGTERM')).toBe(before.term);
    expect(process.listenerCount('SIGINT')).toBe(before.int);
  });

  it('adds no signal listener with handleSignals: false', async () => {
    const before = process.listenerCount('SIGTERM');
    await listenAndConnect(serverWith());
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});

describe('plugins', () => {
  it('register tools, resources, prompts and routes, and log under their name', async () => {
    const handler = () => new Response();
    const plugin: PierPlugin = {
      name: 'extras',
      setup(ctx) {
        expect(ctx.server).toEqual({ name: 'weather', version: '1.0.0' });
        ctx.addTool(defineTool({ name: 'ping', handler: () => 'pong' }));
        ctx.addResource({ name: 'about', uri: 'about://extras', handler: () => 'extras' });
        ctx.addPrompt({ name: 'greet', handler: () => 'Say hello.' });
        ctx.addRoute({ method: 'get', path: '/extras', handler });
        ctx.logger.info('ready to help', { routes: 1 });
      },
    };
    const server = serverWith([plugin]);
    expect(server.routes).toEqual([{ method: 'GET', path: '/extras', handler }]);
    expect(logs).toMatch(/ INFO {2}\[weather\/extras\] ready to help routes=1\n/);
    const { client } = await listenAndConnect(server);
    expect((await client.callTool({ name: 'ping', arguments: {} })).content).toEqual([
      { type: 'text', text: 'pong' },
    ]);
    expect((await client.readResource({ uri: 'about://extras' })).contents).toEqual([
      { uri: 'about://extras', mimeType: 'text/plain', text: 'extras' },
    ]);
    expect((await client.getPrompt({ name: 'greet' })).messages).toHaveLength(1);
  });

  it('may not register after setup', () => {
    const plugin = witness();
    serverWith([plugin]);
    expect(() => plugin.ctx?.addTool(defineTool({ name: 'late', handler: () => 'x' }))).toThrow(
      expect.objectContaining({ code: 'PLUGIN_INVALID', message: expect.stringContaining('after setup') }),
    );
  });
});
