// The Redis event bus against a real redis-server: delivery between buses, no echoes, publish that never
// throws, the bounded offline queue, replay after a reconnect, and a gap that is reported, not silent.
import { createHook } from 'node:async_hooks';
import { Socket } from 'node:net';
import type { BusEvent } from '@pier/core/transport';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PierRedisError,
  type RedisClientLike,
  type RedisEventBus,
  type RedisEventBusOptions,
  redisEventBus,
} from './index.js';
import { ensureInstalled, freePort, type RedisProcess, startRedis } from './test-infra.js';
import { sleep, until } from './test-replicas.js';

let redis: RedisProcess;
beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

let buses: RedisEventBus[] = [];
afterEach(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
  buses = [];
});

let streams = 0;
function bus(options: Partial<RedisEventBusOptions> & { stream: string }): RedisEventBus & {
  heard: BusEvent[];
  errors: PierRedisError[];
} {
  const errors: PierRedisError[] = [];
  const made = redisEventBus({ url: redis.url, onerror: (error) => errors.push(error), ...options });
  const heard: BusEvent[] = [];
  made.subscribe((event) => heard.push(event));
  buses.push(made);
  return Object.assign(made, { heard, errors });
}
const fresh = () => `test:events:${process.pid}:${++streams}`;

describe('redisEventBus between two replicas', () => {
  it('delivers locally at once, to the other replica once, never back to its publisher, params included', async () => {
    const stream = fresh();
    const a = bus({ stream, nodeId: 'a' });
    const b = bus({ stream, nodeId: 'b' });
    await Promise.all([a.ready, b.ready]);
    const event: BusEvent = {
      kind: 'resource_updated',
      uri: 'notes://1',
      params: { uri: 'notes://1', title: 'x' },
    };
    a.publish(event);
    // Local delivery is synchronous, as with the in-memory bus.
    expect(a.heard).toEqual([event]);
    await until(() => b.heard.length === 1, 'the event on b');
    b.publish({ kind: 'tools_list_changed' });
    await until(() => a.heard.length === 2, 'the event on a');
    await sleep(100);
    expect(b.heard).toEqual([event, { kind: 'tools_list_changed' }]);
    expect(a.heard).toEqual([event, { kind: 'tools_list_changed' }]);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('events raised together (more than one write holds) arrive on the other replica once each, in order', async () => {
    const stream = fresh();
    const a = bus({ stream, nodeId: 'a' });
    const b = bus({ stream, nodeId: 'b' });
    await Promise.all([a.ready, b.ready]);
    const uris = Array.from({ length: 600 }, (_, index) => `notes://${index}`);
    for (const uri of uris) a.publish({ kind: 'resource_updated', uri });
    await until(() => b.heard.length >= uris.length && a.queued === 0, 'the burst on b', 10_000);
    await sleep(100);
    expect(b.heard.map((event) => (event as { uri: string }).uri)).toEqual(uris);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('flush resolves once the events were written to Redis’s connection; a plain await resolves before (the control)', async () => {
    const stream = fresh();
    const a = bus({ stream, nodeId: 'a' });
    const b = bus({ stream, nodeId: 'b' });
    await Promise.all([a.ready, b.ready]);
    // How many XADDs this process has written to a socket so far.
    let written = 0;
    const write = Socket.prototype.write;
    Socket.prototype.write = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('latin1');
      written += text.split('XADD').length - 1;
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof Socket.prototype.write;
    const seen: Record<string, number[]> = {};
    let published = 0;
    try {
      for (const [name, settle] of [
        ['plain await', () => Promise.resolve()],
        ['flush', () => a.flush()],
      ] as const) {
        seen[name] = [];
        // One event, then three in a row (the last two queue behind the first one's unacknowledged write).
        for (const count of [1, 3]) {
          const before = written;
          for (let n = 0; n < count; n++)
            a.publish({ kind: 'resource_updated', uri: `notes://${++published}` });
          await settle();
          seen[name].push(written - before);
          await until(() => written - before === count && a.queued === 0, 'the XADDs written');
        }
      }
    } finally {
      Socket.prototype.write = write;
    }
    expect(seen).toEqual({ 'plain await': [0, 0], flush: [1, 3] });
    await until(() => b.heard.length === published, 'the events on b');
  });

  it('does not deliver what was published before it was ready', async () => {
    const stream = fresh();
    const a = bus({ stream, nodeId: 'a' });
    await a.ready;
    a.publish({ kind: 'prompts_list_changed' });
    await until(() => a.queued === 0, 'the write');
    const late = bus({ stream, nodeId: 'late' });
    await late.ready;
    a.publish({ kind: 'resources_list_changed' });
    await until(() => late.heard.length === 1, 'the later event');
    expect(late.heard).toEqual([{ kind: 'resources_list_changed' }]);
  });

  it('with the in-memory default nothing crosses (negative control of the test above)', async () => {
    const { InMemoryServerEventBus } = await import('@pier/core/transport');
    const a = new InMemoryServerEventBus();
    const b = new InMemoryServerEventBus();
    const heard: BusEvent[] = [];
    b.subscribe((event) => heard.push(event));
    a.publish({ kind: 'tools_list_changed' });
    await sleep(200);
    expect(heard).toEqual([]);
  });
});

describe('redisEventBus commands and timers', () => {
  /**
   * How many of the timers `run` made are still pending once it is done (async_hooks sees every timer,
   * unref'd ones too; a timer that fired or was cleared is destroyed).
   */
  async function timersLeftBy(run: () => Promise<void>): Promise<number> {
    const pending = new Set<number>();
    const hook = createHook({
      init(id, type) {
        if (type === 'Timeout') pending.add(id);
      },
      destroy(id) {
        pending.delete(id);
      },
    }).enable();
    try {
      await run();
      // Destroy hooks run a turn late.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      return pending.size;
    } finally {
      hook.disable();
    }
  }

  /** 200 events published one write at a time by `a`, each heard by a Pier-made `b`. */
  async function publishEach(a: RedisEventBus, stream: string): Promise<number> {
    const b = bus({ stream, nodeId: 'b' });
    await Promise.all([a.ready, b.ready]);
    return timersLeftBy(async () => {
      for (let index = 0; index < 200; index++) {
        a.publish({ kind: 'resource_updated', uri: `notes://${index}` });
        await a.flush();
      }
      await until(() => b.heard.length >= 200, 'the 200 events on b', 10_000);
    });
  }

  it('leaves no five-second timer behind per command, as a node-redis client with its default options does (the control)', async () => {
    // Pier's own client: node-redis's per-command timeout is off (see client.ts).
    const ownStream = fresh();
    const pier = await publishEach(bus({ stream: ownStream, nodeId: 'a' }), ownStream);
    // The control: a client made with node-redis's defaults, passed in, makes an AbortSignal.timeout(5000)
    // for every XADD and XREAD.
    const client = createClient({ url: redis.url }) as unknown as RedisClientLike;
    await client.connect();
    const defaultStream = fresh();
    const withClient = redisEventBus({ client, stream: defaultStream, nodeId: 'a' });
    buses.push(withClient);
    const defaults = await publishEach(withClient, defaultStream);
    await client.close();
    expect(pier).toBeLessThan(60);
    expect(defaults).toBeGreaterThanOrEqual(200);
  });
});

describe('redisEventBus when Redis is unreachable', () => {
  it('publish never throws, delivers locally, and keeps at most maxQueued events', async () => {
    const port = await freePort();
    const errors: PierRedisError[] = [];
    const lonely = redisEventBus({
      url: `redis://127.0.0.1:${port}`,
      maxQueued: 3,
      onerror: (e) => errors.push(e),
    });
    buses.push(lonely);
    const heard: BusEvent[] = [];
    lonely.subscribe((event) => heard.push(event));
    for (let i = 0; i < 10; i++)
      expect(() => lonely.publish({ kind: 'resource_updated', uri: `u://${i}` })).not.toThrow();
    expect(heard).toHaveLength(10);
    expect(lonely.queued).toBe(3);
    expect(lonely.connected).toBe(false);
    // Nothing can leave: flush does not wait for Redis.
    await expect(lonely.flush()).resolves.toBeUndefined();
    expect(errors.map((error) => error.code)).toContain('REDIS_QUEUE_FULL');
    const check = await lonely.healthCheck().check({ signal: AbortSignal.timeout(1_000) });
    expect(check.status).toBe('unhealthy');
    expect(lonely.healthCheck().critical).toBe(false);
  });

  it('replays what a replica missed while its reader was away, and sends what was queued once Redis is back', async () => {
    const stream = fresh();
    const a = bus({ stream, nodeId: 'a' });
    const b = bus({ stream, nodeId: 'b' });
    await Promise.all([a.ready, b.ready]);
    a.publish({ kind: 'resource_updated', uri: 'notes://before' });
    await until(() => b.heard.length === 1, 'the first event');
    await redis.kill();
    a.publish({ kind: 'resource_updated', uri: 'notes://during' });
    expect(a.queued).toBe(1);
    await redis.restart();
    // Redis came back empty: b's last entry is gone, so b reports the gap and tells listeners to re-read
    // (every list, and the URIs it saw lately); then the queued event arrives.
    await until(
      () => b.heard.some((event) => 'uri' in event && event.uri === 'notes://during'),
      'the queued event',
      8_000,
    );
    expect(b.errors.map((error) => error.code)).toContain('REDIS_EVENTS_LOST');
    expect(b.heard).toContainEqual({ kind: 'tools_list_changed' });
    expect(b.heard.filter((event) => 'uri' in event && event.uri === 'notes://before')).toHaveLength(2);
    expect(b.heard.filter((event) => 'uri' in event && event.uri === 'notes://during')).toHaveLength(1);
    expect(a.heard.filter((event) => 'uri' in event)).toHaveLength(2);
    await until(() => a.connected && b.connected, 'both reconnected', 5_000);
  });
});

describe('redisEventBus after a dropped connection, Redis keeping its data', () => {
  it('resumes from its last entry: no gap reported, the event published meanwhile arrives once', async () => {
    const stream = fresh();
    const a = bus({ stream, nodeId: 'a' });
    const b = bus({ stream, nodeId: 'b' });
    await Promise.all([a.ready, b.ready]);
    a.publish({ kind: 'resource_updated', uri: 'notes://before' });
    await until(() => b.heard.length === 1, 'the first event');
    const { createClient } = await import('@redis/client');
    const admin = createClient({ url: redis.url });
    await admin.connect();
    // Drops every other connection (both buses'), as a network blip would.
    await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes']);
    await admin.close();
    a.publish({ kind: 'resource_updated', uri: 'notes://meanwhile' });
    await until(() => b.heard.length === 2, 'the event published meanwhile', 8_000);
    await sleep(300);
    expect(b.heard).toEqual([
      { kind: 'resource_updated', uri: 'notes://before' },
      { kind: 'resource_updated', uri: 'notes://meanwhile' },
    ]);
    expect(b.errors.map((error) => error.code)).not.toContain('REDIS_EVENTS_LOST');
  });
});

describe('redisEventBus options', () => {
  it.each([
    [{}, /exactly one of url and client/],
    [{ url: 'http://x' }, /redis:\/\//],
    [{ url: 'redis://x', blockMs: 6_000 }, /below 5000/],
    [{ url: 'redis://x', maxQueued: -1 }, /maxQueued/],
    [{ client: {} }, /duplicate\(\)/],
  ])('refuses %o', (options, message) => {
    expect(() => redisEventBus(options as RedisEventBusOptions)).toThrow(message);
    try {
      redisEventBus(options as RedisEventBusOptions);
    } catch (error) {
      expect(error).toBeInstanceOf(PierRedisError);
      expect(error).toMatchObject({ code: 'REDIS_OPTIONS_INVALID' });
    }
  });

  it('never quotes the URL, which may hold a password', () => {
    expect(() => redisEventBus({ url: 'http://user:hunter2@x' })).toThrow(/^(?!.*hunter2)/s);
  });
});
