// The Redis limit store on a real redis-server: three stores (three replicas' clients) share one count,
// concurrent bursts admit exactly the limit, a batch counts all or nothing, slots of a dead replica come
// back when their lease ends, every key expires after its window, and an outage fails fast.
import { InMemoryLimitStore, type LimitCheck, PierError } from '@pier/core';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisLimitStore, redisLimitStore } from './index.js';
import { ensureInstalled, type RedisProcess, startRedis } from './test-infra.js';

let redis: RedisProcess;
const stores: RedisLimitStore[] = [];
let admin: ReturnType<typeof createClient>;

beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
  admin = createClient({ url: redis.url });
  admin.on('error', () => {});
  await admin.connect();
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await admin?.close().catch(() => undefined);
  await redis?.stop();
});

async function replicas(count: number, prefix: string, leaseMs?: number): Promise<RedisLimitStore[]> {
  const made = Array.from({ length: count }, () =>
    redisLimitStore({ url: redis.url, prefix, ...(leaseMs !== undefined && { leaseMs }) }),
  );
  stores.push(...made);
  await Promise.all(made.map((store) => store.ready));
  return made;
}

async function keys(prefix: string): Promise<string[]> {
  return admin.keys(`${prefix}*`);
}

const rate = (key: string, limit: number, windowMs: number, cost = 1): LimitCheck => ({
  kind: 'rate',
  key,
  limit,
  windowMs,
  cost,
});

describe('redisLimitStore', () => {
  it("one round trip a check: one EVALSHA for all of a request's rules, and no other command", async () => {
    // A real node-redis client that notes every command method the store calls on it.
    const real = createClient({ url: redis.url });
    real.on('error', () => {});
    const sent: string[] = [];
    const noted = new Proxy(real, {
      get(target, name) {
        const value = Reflect.get(target, name, target) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (!['on', 'connect', 'close', 'destroy'].includes(String(name))) sent.push(String(name));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const store = redisLimitStore({ client: noted, prefix: 'trips:' });
    stores.push(store);
    await store.ready;
    sent.length = 0;
    const checks: LimitCheck[] = [
      rate('alice', 1_000, 60_000),
      { kind: 'quota', key: 'alice', limit: 1_000, windowMs: 86_400_000, cost: 1 },
      { kind: 'concurrency', key: 'alice', limit: 100, holder: 'h' },
    ];
    for (let call = 0; call < 20; call++) await store.consume(checks);
    expect(sent).toEqual(Array.from({ length: 20 }, () => 'evalSha'));
    await real.close();
  });

  it('three replicas share one bucket: a burst of 60 at once admits exactly the limit of 10', async () => {
    const fleet = await replicas(3, 'burst:');
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        (fleet[i % 3] as RedisLimitStore).consume([rate('alice', 10, 60_000)]),
      ),
    );
    const admitted = outcomes.filter(([outcome]) => outcome?.allowed);
    expect(admitted).toHaveLength(10);
    expect(admitted.map(([outcome]) => outcome?.remaining).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    const refused = outcomes.find(([outcome]) => !outcome?.allowed)?.[0];
    // One unit comes back every 6 s.
    expect(refused?.retryAfterMs).toBeGreaterThan(5_000);
    expect(refused?.retryAfterMs).toBeLessThanOrEqual(6_000);
    // Negative control: each replica counting in its own memory admits the limit three times.
    const alone = [new InMemoryLimitStore(), new InMemoryLimitStore(), new InMemoryLimitStore()];
    const separate = Array.from({ length: 60 }, (_, i) =>
      (alone[i % 3] as InMemoryLimitStore).consume([rate('alice', 10, 60_000)]),
    );
    expect(separate.filter(([outcome]) => outcome?.allowed)).toHaveLength(30);
    // Another caller has a bucket of its own.
    expect((await fleet[0]?.consume([rate('bob', 10, 60_000)]))?.[0]?.allowed).toBe(true);
    // Keys hold a hash of the caller, never the caller itself.
    expect((await keys('burst:')).join(' ')).not.toMatch(/alice|bob/);
  });

  it('sustained bursts from three replicas never pass the documented bound: limit + limit·t/windowMs', async () => {
    const fleet = await replicas(3, 'sustained:');
    const limit = 10;
    const windowMs = 1_000; // one unit back every 100 ms
    let admitted = 0;
    const started = performance.now();
    // 15 bursts of 20 concurrent checks, one every 100 ms (bounded: 300 checks, about 1.5 s).
    for (let burst = 0; burst < 15; burst++) {
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (fleet[i % 3] as RedisLimitStore).consume([rate('steady', limit, windowMs)]),
        ),
      );
      admitted += outcomes.filter(([outcome]) => outcome?.allowed).length;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The span Redis saw is within the span measured here, so this bound is never tighter than the real one.
    const elapsed = performance.now() - started;
    expect(admitted).toBeLessThanOrEqual(limit + Math.floor((limit * elapsed) / windowMs));
    // The first burst alone takes the whole bucket: the bucket did fill, and refill was counted.
    expect(admitted).toBeGreaterThan(limit);
  });

  it('quotas and concurrency caps hold across replicas too; a batch counts all or nothing', async () => {
    const fleet = await replicas(3, 'mixed:');
    const quota: LimitCheck = { kind: 'quota', key: 'q', limit: 5, windowMs: 86_400_000, cost: 2 };
    const quotaOutcomes = await Promise.all(fleet.map((store) => store.consume([quota])));
    expect(quotaOutcomes.filter(([outcome]) => outcome?.allowed)).toHaveLength(2);

    const holders = Array.from({ length: 9 }, (_, i) => `h${i}`);
    const taken = await Promise.all(
      holders.map((holder, i) =>
        (fleet[i % 3] as RedisLimitStore).consume([{ kind: 'concurrency', key: 'c', limit: 4, holder }]),
      ),
    );
    const holding = holders.filter((_, i) => taken[i]?.[0]?.allowed);
    expect(holding).toHaveLength(4);
    await (fleet[0] as RedisLimitStore).release([{ key: 'c', holder: holding[0] as string }]);
    const again = await fleet[1]?.consume([{ kind: 'concurrency', key: 'c', limit: 4, holder: 'late' }]);
    expect(again?.[0]).toMatchObject({ allowed: true, remaining: 0 });

    // `narrow` is spent: a batch with it counts nothing, not even the `wide` check that passed.
    await fleet[0]?.consume([rate('narrow', 1, 60_000)]);
    const batch = await fleet[1]?.consume([rate('wide', 3, 60_000), rate('narrow', 1, 60_000)]);
    expect(batch?.map((outcome) => outcome.allowed)).toEqual([true, false]);
    expect((await fleet[2]?.consume([rate('wide', 3, 60_000)]))?.[0]?.remaining).toBe(2);
  });

  it('every key expires after its window: nothing is left once callers stop', async () => {
    const [store] = await replicas(1, 'expiry:', 300);
    // Keys seen right after each call: under load the first ones can expire before the loop ends (a quota
    // key lives until its epoch-aligned window closes, which can be a millisecond after it was made).
    const seen = new Set<string>();
    for (let caller = 0; caller < 20; caller++) {
      await store?.consume([
        rate(`caller-${caller}`, 5, 300),
        { kind: 'quota', key: `caller-${caller}`, limit: 5, windowMs: 400, cost: 1 },
      ]);
      for (const key of await keys('expiry:')) seen.add(key);
    }
    await store?.consume([{ kind: 'concurrency', key: 'slow', limit: 1, holder: 'x' }]);
    await store?.release([{ key: 'slow', holder: 'x' }]);
    // Every rate key (it lives 300 ms from its call) and most quota keys were there.
    expect(seen.size).toBeGreaterThanOrEqual(30);
    // Bounded wait: the longest window (400 ms, epoch-aligned) plus a margin.
    for (let waited = 0; (await keys('expiry:')).length > 0 && waited < 3_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await keys('expiry:')).toEqual([]);
  });

  it("a replica that dies holding slots gives them back when its lease ends; a live one's are refreshed", async () => {
    const [dying, live, other] = await replicas(3, 'lease:', 600);
    const hold = (store: RedisLimitStore | undefined, holder: string) =>
      store?.consume([{ kind: 'concurrency', key: 'job', limit: 2, holder }]);
    expect((await hold(dying, 'd'))?.[0]?.allowed).toBe(true);
    expect((await hold(live, 'l'))?.[0]?.allowed).toBe(true);
    expect((await hold(other, 'o1'))?.[0]?.allowed).toBe(false);
    // The dying replica stops (no release, no more refreshes); the live one keeps refreshing.
    await dying?.close();
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await hold(other, 'o2'))?.[0]?.allowed).toBe(true);
    expect((await hold(other, 'o3'))?.[0]?.allowed).toBe(false);
  });

  it('fails fast while Redis is down (REDIS_LIMIT_STORE_FAILED), and counts again once it is back', async () => {
    const [store] = await replicas(1, 'outage:');
    await expect(store?.check()).resolves.toBeUndefined();
    await redis.kill();
    const started = Date.now();
    await expect(store?.consume([rate('k', 5, 60_000)])).rejects.toMatchObject({
      code: 'REDIS_LIMIT_STORE_FAILED',
    });
    await expect(store?.check()).rejects.toThrow();
    // Not a wait for the reconnect (bounded, not a timing claim).
    expect(Date.now() - started).toBeLessThan(5_000);
    await redis.restart();
    for (let waited = 0; waited < 5_000; waited += 50) {
      const outcome = await store?.consume([rate('k', 5, 60_000)]).catch(() => undefined);
      if (outcome !== undefined) {
        expect(outcome[0]).toMatchObject({ allowed: true, remaining: 4 });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the store did not count again after Redis came back');
  });

  it('refuses bad options: every problem at once, each naming its option, never quoting the URL', () => {
    let thrown: unknown;
    try {
      redisLimitStore({ url: 'http://user:hunter2@x', timeoutMs: 0, leaseMs: 1, prefix: '' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      name: 'PierRedisError',
      code: 'REDIS_OPTIONS_INVALID',
      issues: [
        'url must be a redis:// or rediss:// URL',
        'prefix must be a non-empty string (got "")',
        'timeoutMs must be an integer ≥ 1 (got 0)',
        'leaseMs must be an integer ≥ 3 (got 1)',
      ],
    });
    expect(PierError.isInstance(thrown)).toBe(true);
    expect(String((thrown as Error).message)).not.toMatch(/hunter2/);
    expect(() => redisLimitStore({ url: 'redis://x', onerror: 'log' as never })).toThrow(
      'redisLimitStore: onerror must be a function',
    );
  });
});
