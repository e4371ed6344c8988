// Resource subscriptions: `subscribable` resources, resources/subscribe and unsubscribe, and
// notifyResourceUpdated from the server, a plugin and a method's context, seen from the SDK's client.
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/client';
import {
  InMemoryServerEventBus,
  InMemoryTransport,
  type JSONRPCMessage,
  type McpServer,
  ReadBuffer,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { defineResource, defineServer, defineTool } from '../declaring/define.js';
import type { Engine } from '../engine/engine.js';
import { PierError } from '../errors.js';
import { createLogger } from '../logger.js';
import type { PluginContext } from '../plugins/api.js';
import { ERAS, type Era, REVISION } from '../test-helpers.js';
import type { BusEvent, EventBus } from '../transports/host.js';
import { createServer } from './create-server.js';
import { ResourceUpdates } from './subscriptions.js';

let clients: Client[] = [];
afterEach(closeAll);
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
});

let pluginContext: PluginContext | undefined;
let content = 'v1';

function serve(subscribable = true, eventBus?: EventBus) {
  return createServer(
    defineServer({
      name: 'watched',
      version: '1.0.0',
      resources: [
        defineResource({ name: 'status', uri: 'app://status', subscribable, handler: () => content }),
        defineResource({ name: 'license', uri: 'app://license', handler: () => 'MIT' }),
        defineResource({
          name: 'user',
          uriTemplate: 'users://{id}',
          subscribable,
          handler: (_uri, ctx) => `user ${String(ctx.variables.id)}`,
        }),
      ],
      tools: [
        defineTool({
          name: 'set_status',
          handler: async (_args, ctx) => {
            content = 'v2';
            await ctx.notifyResourceUpdated('app://status');
            return 'ok';
          },
        }),
      ],
      plugins: [
        {
          name: 'watcher',
          setup: (ctx) => {
            pluginContext = ctx;
          },
        },
      ],
    }),
    { handleSignals: false, logStream: { write: () => true }, ...(eventBus && { eventBus }) },
  );
}

async function client(server: ReturnType<typeof serve>, era: Era = 'legacy') {
  const connected = (await connect(server, { era: REVISION[era] })).client;
  clients.push(connected);
  const updates: string[] = [];
  connected.setNotificationHandler('notifications/resources/updated', (notification) => {
    updates.push(notification.params.uri);
  });
  return { client: connected, updates };
}

/** Resolves once `check` holds (polled every 5 ms); fails after 2 s, naming `what`. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 5) {
    if (waited >= 2_000) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.each(['legacy', 'legacy 2025-06-18'] as const)('over %s', (era) => {
  it('advertises resources.subscribe only when a resource is subscribable', async () => {
    const { client: watching } = await client(serve(true), era);
    expect(watching.getServerCapabilities()?.resources).toEqual({ listChanged: false, subscribe: true });
    const { client: plain } = await client(serve(false), era);
    expect(plain.getServerCapabilities()?.resources).toEqual({ listChanged: false });
  });

  it('sends notifications/resources/updated to the subscribers of that URI only', async () => {
    const server = serve();
    const a = await client(server, era);
    const b = await client(server, era);
    const c = await client(server, era);
    expect(await a.client.subscribeResource({ uri: 'app://status' })).toEqual({});
    await b.client.subscribeResource({ uri: 'users://7' });
    await server.notifyResourceUpdated('app://status');
    await server.notifyResourceUpdated('users://7');
    await server.notifyResourceUpdated('users://8');
    await until(() => a.updates.length > 0 && b.updates.length > 0, 'the updates');
    expect(a.updates).toEqual(['app://status']);
    expect(b.updates).toEqual(['users://7']);
    expect(c.updates).toEqual([]);
  });

  it('lets a tool (through its context) and a plugin announce a change', async () => {
    const server = serve();
    const watcher = await client(server, era);
    await watcher.client.subscribeResource({ uri: 'app://status' });
    await watcher.client.callTool({ name: 'set_status', arguments: {} });
    await pluginContext?.notifyResourceUpdated('app://status');
    await until(() => watcher.updates.length === 2, 'two updates');
    expect(watcher.updates).toEqual(['app://status', 'app://status']);
  });

  it('stops after resources/unsubscribe', async () => {
    const server = serve();
    const watcher = await client(server, era);
    await watcher.client.subscribeResource({ uri: 'app://status' });
    expect(await watcher.client.unsubscribeResource({ uri: 'app://status' })).toEqual({});
    await server.notifyResourceUpdated('app://status');
    // A marker sent after: updates on one connection arrive in order, so once it is here, so would that be.
    await watcher.client.subscribeResource({ uri: 'users://1' });
    await server.notifyResourceUpdated('users://1');
    await until(() => watcher.updates.length > 0, 'the marker');
    expect(watcher.updates).toEqual(['users://1']);
  });

  it('refuses a URI no resource serves, and one that is not subscribable (-32602)', async () => {
    const { client: watching } = await client(serve(), era);
    await expect(watching.subscribeResource({ uri: 'app://nothing' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Resource not found: app://nothing'),
    });
    await expect(watching.subscribeResource({ uri: 'app://license' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('does not change'),
    });
  });
});

describe('over modern (2026-07-28) stdio', () => {
  it('delivers updates to the subscriptions/listen streams whose filter names the URI', async () => {
    const server = serve();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    await server.listen({ transport: 'stdio', stdin, stdout });
    const modern = new Client({ name: 'listener', version: '1.0.0' }, ERAS.modern);
    clients.push(modern);
    await modern.connect(new StreamTransport(stdin, stdout));
    const updates: string[] = [];
    modern.setNotificationHandler('notifications/resources/updated', (notification) => {
      updates.push(notification.params.uri);
    });
    const subscription = await modern.listen({ resourceSubscriptions: ['app://status'] });
    expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ['app://status'] });
    await server.notifyResourceUpdated('users://1');
    await server.notifyResourceUpdated('app://status');
    await until(() => updates.length > 0, 'the update');
    expect(updates).toEqual(['app://status']);
    await subscription.close();
    await server.close();
  });
});

describe('a request without a connection (how stateless HTTP serves each one)', () => {
  it('refuses resources/subscribe: nothing could carry the update later', async () => {
    const answer = await serve().engine.handle(
      { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'app://status' } },
      { era: 'legacy' },
    );
    expect(answer?.message).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32600,
        message: expect.stringContaining('Subscriptions need a connection that outlives the request'),
      },
    });
  });
});

/** A server with one subscribable resource whose log lines are kept. */
function loggedServer() {
  const lines: string[] = [];
  const server = createServer(
    defineServer({
      name: 'watched',
      version: '1.0.0',
      resources: [
        defineResource({ name: 'status', uri: 'app://status', subscribable: true, handler: () => 'up' }),
      ],
    }),
    { handleSignals: false, logStream: { write: (line: string) => lines.push(line) } },
  );
  return { server, lines };
}

describe('for transports that deliver updates their own way', () => {
  it('onResourceUpdated hears every announced URI until stopped; a failing listener stops no one', async () => {
    const { server, lines } = loggedServer();
    const heard: string[] = [];
    const stopFailing = server.onResourceUpdated(() => {
      throw new Error('listener broke');
    });
    const stop = server.onResourceUpdated((uri) => heard.push(uri));
    await server.notifyResourceUpdated('app://status');
    await server.notifyResourceUpdated('users://7');
    stop();
    stopFailing();
    await server.notifyResourceUpdated('app://status');
    expect(heard).toEqual(['app://status', 'users://7']);
    expect(lines.join('')).toMatch(/WARN .*resource update not forwarded .*listener broke/);
  });

  it('server.events hears every announced URI until unsubscribed; a failing listener stops no one', async () => {
    const { server, lines } = loggedServer();
    const heard: string[] = [];
    const stopFailing = server.events.subscribe(() => {
      throw new Error('listener broke');
    });
    const stop = server.events.subscribe((event) => {
      if (event.kind === 'resource_updated') heard.push(event.uri);
    });
    await server.notifyResourceUpdated('app://status');
    await server.notifyResourceUpdated('users://7');
    stop();
    stopFailing();
    await server.notifyResourceUpdated('app://status');
    expect(heard).toEqual(['app://status', 'users://7']);
    expect(lines.join('')).toMatch(/WARN .*an event listener failed .*listener broke/);
  });

  it('advertises resources.subscribe only where updates can reach the client later (a connection)', async () => {
    const server = serve();
    for (const [connected, subscribe] of [
      [true, true],
      [false, undefined],
    ] as const) {
      const connection = connected ? server.engine.connect({ send: () => {}, transport: 'test' }) : undefined;
      const answer = await server.engine.handle(INITIALIZE, { era: 'legacy', connection });
      const message = answer?.message as
        | { result: { capabilities: { resources: { subscribe?: boolean } } } }
        | undefined;
      expect(message?.result.capabilities.resources.subscribe, `connected: ${connected}`).toBe(subscribe);
      connection?.close();
    }
  });
});

describe('ResourceUpdates', () => {
  it('forgets the subscriptions of a connection once it closes', async () => {
    const server = serve();
    const hub = new ResourceUpdates(
      createLogger({ stream: { write: () => true } }),
      new InMemoryServerEventBus(),
    );
    hub.attach(server.engine as Engine);
    const connection = server.engine.connect({ send: () => {}, transport: 'test' });
    await server.engine.handle(INITIALIZE, { era: 'legacy', connection });
    await server.engine.handle(
      { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'app://status' } },
      { era: 'legacy', connection },
    );
    expect(hub.connections).toBe(1);
    connection.close();
    expect(hub.connections).toBe(0);
  });

  it('rejects notifyResourceUpdated without a URI', async () => {
    await expect(serve().notifyResourceUpdated('')).rejects.toThrow(PierError);
    await expect(serve().notifyResourceUpdated(42 as unknown as string)).rejects.toMatchObject({
      code: 'OPTIONS_INVALID',
    });
  });
});

/** `mcp` connected to an in-memory peer that sends raw messages and collects the answers. */
async function rawPeer(mcp: McpServer) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const answers: JSONRPCMessage[] = [];
  clientSide.onmessage = (message) => answers.push(message);
  await mcp.connect(serverSide);
  await clientSide.start();
  return { peer: clientSide, answers };
}

const INITIALIZE: JSONRPCMessage = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

/** A client transport over a pair of streams (the server's stdin and stdout), in process. */
class StreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #buffer = new ReadBuffer();

  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}

  async start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (let message = this.#buffer.readMessage(); message; message = this.#buffer.readMessage()) {
        this.onmessage?.(message);
      }
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
  }
}

describe('a replaced event bus (the seam replicas share)', () => {
  /** Two buses joined like two replicas on one broker: each delivers locally, then to the other. */
  function joinedBuses(): [EventBus, EventBus] {
    const make = (): EventBus & {
      local: InMemoryServerEventBus;
      peer?: EventBus & { local: InMemoryServerEventBus };
    } => {
      const local = new InMemoryServerEventBus();
      const bus = {
        local,
        publish(event: BusEvent) {
          local.publish(event);
          bus.peer?.local.publish(event);
        },
        subscribe: (listener: (event: BusEvent) => void) => local.subscribe(listener),
      } as EventBus & { local: InMemoryServerEventBus; peer?: EventBus & { local: InMemoryServerEventBus } };
      return bus;
    };
    const a = make();
    const b = make();
    a.peer = b;
    b.peer = a;
    return [a, b];
  }

  it.each(['legacy', 'modern'] as const)(
    'an update announced on one server reaches a %s client of another that shares its bus',
    async (era) => {
      const [busA, busB] = joinedBuses();
      const replicaA = serve(true, busA);
      const replicaB = serve(true, busB);
      const { client: connected, updates } = await client(replicaA, era);
      if (era === 'legacy') await connected.subscribeResource({ uri: 'app://status' });
      else await connected.listen({ resourceSubscriptions: ['app://status'] });
      await replicaB.notifyResourceUpdated('app://status');
      await until(() => updates.includes('app://status'), 'the update from the other replica');
      expect(updates).toEqual(['app://status']);
    },
  );

  it('without the shared bus, the other server’s update never arrives (negative control)', async () => {
    const replicaA = serve();
    const replicaB = serve();
    const { client: connected, updates } = await client(replicaA, 'legacy');
    await connected.subscribeResource({ uri: 'app://status' });
    await replicaB.notifyResourceUpdated('app://status');
    await replicaA.notifyResourceUpdated('app://license-marker');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(updates).toEqual([]);
  });

  it('notifyResourceUpdated waits for the bus’s flush (the event left the process); a failing flush is logged, never thrown', async () => {
    const local = new InMemoryServerEventBus();
    let release: () => void = () => {};
    let flushes = 0;
    let failing = false;
    const bus: EventBus = {
      publish: (event) => local.publish(event),
      subscribe: (listener) => local.subscribe(listener),
      flush: () => {
        flushes++;
        if (failing) return Promise.reject(new Error('broker gone'));
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    };
    const server = serve(true, bus);
    let done = false;
    const notified = server.notifyResourceUpdated('app://status').then(() => {
      done = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(flushes).toBe(1);
    expect(done).toBe(false);
    release();
    await notified;
    expect(done).toBe(true);
    failing = true;
    await expect(server.notifyResourceUpdated('app://status')).resolves.toBeUndefined();
    expect(flushes).toBe(2);
  });

  it('createServer refuses an eventBus without publish and subscribe', () => {
    expect(() =>
      createServer(defineServer({ name: 'x', version: '1.0.0' }), { eventBus: {} as never }),
    ).toThrow(/eventBus must have publish\(event\) and subscribe\(listener\)/);
    const bus = new InMemoryServerEventBus();
    expect(() =>
      createServer(defineServer({ name: 'x', version: '1.0.0' }), {
        eventBus: { publish: (e) => bus.publish(e), subscribe: (l) => bus.subscribe(l), flush: 1 as never },
      }),
    ).toThrow(/eventBus\.flush must be a function when given \(got 1\)/);
  });
});
