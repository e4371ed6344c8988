// The KeyValueStore contract, run with the same assertions against core's in-memory default and the Redis
// store on a real redis-server; then what only the Redis store promises: keys under its prefix expiring
// with their TTL, one winner when two replicas take one key, clear errors when Redis is gone.
import { InMemoryKeyValueStore, type KeyValueStore } from '@pier/core';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PierRedisError, type RedisKeyValueStore, redisKeyValueStore } from './index.js';
import { ensureInstalled, freePort, type RedisProcess, startRedis } from './test-infra.js';

let redis: RedisProcess;
let raw: ReturnType<typeof createClient>;
const stores: RedisKeyValueStore[] = [];
beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
  raw = createClient({ url: redis.url });
  raw.on('error', () => {});
  await raw.connect();
});
afterAll(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await raw?.close().catch(() => undefined);
  await redis?.stop();
});

let prefixes = 0;
async function redisStore(prefix = `test:kv:${process.pid}:${++prefixes}:`): Promise<RedisKeyValueStore> {
  const store = redisKeyValueStore({ url: redis.url, prefix });
  stores.push(store);
  await store.ready;
  return store;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([
  [
    'InMemoryKeyValueStore (the embedded default)',
    async (): Promise<KeyValueStore> => new InMemoryKeyValueStore(),
  ],
  ['redisKeyValueStore (real redis-server)', (): Promise<KeyValueStore> => redisStore()],
])('%s', (_name, make) => {
  it('keeps a value until its TTL', async () => {
    const store = await make();
    await store.set('a', '{"json":true}', 150);
    expect(await store.get('a')).toBe('{"json":true}');
    await sleep(250);
    expect(await store.get('a')).toBeUndefined();
  });

  it('add writes only when the key holds nothing', async () => {
    const store = await make();
    expect(await store.add('k', 'first', 60_000)).toBe(true);
    expect(await store.add('k', 'second', 60_000)).toBe(false);
    expect(await store.get('k')).toBe('first');
    await store.delete('k');
    expect(await store.add('k', 'third', 60_000)).toBe(true);
  });

  it('take hands a value to exactly one of many concurrent callers, then it is gone', async () => {
    const store = await make();
    await store.set('code', 'once', 60_000);
    const taken = await Promise.all(Array.from({ length: 25 }, () => store.take('code')));
    expect(taken.filter((value) => value === 'once')).toHaveLength(1);
    expect(await store.get('code')).toBeUndefined();
  });

  it('set replaces; delete removes; unknown keys read as undefined', async () => {
    const store = await make();
    await store.set('k', 'v1', 60_000);
    await store.set('k', 'v2', 60_000);
    expect(await store.get('k')).toBe('v2');
    await store.delete('k');
    await store.delete('never');
    expect(await store.get('k')).toBeUndefined();
    expect(await store.take('never')).toBeUndefined();
  });

  it('refuses a bad TTL or value without quoting the value', async () => {
    const store = await make();
    await expect(store.set('k', 'v', 0)).rejects.toThrow(/ttlMs must be a positive number/);
    const failure = await store
      .set('k', { secret: 'hunter2' } as never, 1_000)
      .catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(String(failure)).not.toContain('hunter2');
  });
});

describe('redisKeyValueStore only', () => {
  it('keeps each key as one Redis string under its prefix, expiring with its TTL', async () => {
    const store = await redisStore('test:kv:layout:');
    await store.set('grant:1', 'value', 30_000);
    await store.add('code:1', 'value', 5_000);
    expect(await raw.get('test:kv:layout:grant:1')).toBe('value');
    const ttl = await raw.pTTL('test:kv:layout:grant:1');
    expect(ttl).toBeGreaterThan(25_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
    expect(await raw.pTTL('test:kv:layout:code:1')).toBeLessThanOrEqual(5_000);
    await store.take('code:1');
    expect(await raw.exists('test:kv:layout:code:1')).toBe(0);
  });

  it('two replicas (two stores, two connections) taking one key: exactly one wins', async () => {
    const a = await redisStore('test:kv:shared:');
    const b = await redisStore('test:kv:shared:');
    for (let round = 0; round < 20; round++) {
      await a.set(`code:${round}`, `v${round}`, 60_000);
      const [fromA, fromB] = await Promise.all([a.take(`code:${round}`), b.take(`code:${round}`)]);
      expect([fromA, fromB].filter((value) => value !== undefined)).toEqual([`v${round}`]);
    }
    // What one replica writes, the other reads.
    expect(await b.add('lock', 'b', 60_000)).toBe(true);
    expect(await a.add('lock', 'a', 60_000)).toBe(false);
    expect(await a.get('lock')).toBe('b');
  });

  it('fails with REDIS_KV_STORE_FAILED when Redis cannot be reached, never hanging', async () => {
    const port = await freePort();
    const store = redisKeyValueStore({
      url: `redis://user:pa55word@127.0.0.1:${port}`,
      connectTimeoutMs: 200,
    });
    stores.push(store);
    const failure = await store.get('k').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PierRedisError);
    expect((failure as PierRedisError).code).toBe('REDIS_KV_STORE_FAILED');
    expect(String(failure)).not.toContain('pa55word');
  });

  it('refuses bad options, naming them and never quoting the URL', () => {
    expect(() => redisKeyValueStore({} as never)).toThrow(/give exactly one of url and client/);
    const failure = (() => {
      try {
        redisKeyValueStore({ url: 'http://user:s3cret@host' });
      } catch (error) {
        return error as PierRedisError;
      }
    })();
    expect(failure?.code).toBe('REDIS_OPTIONS_INVALID');
    expect(String(failure)).not.toContain('s3cret');
    expect(() => redisKeyValueStore({ url: redis.url, prefix: '' })).toThrow(
      /prefix must be a non-empty string/,
    );
  });
});
