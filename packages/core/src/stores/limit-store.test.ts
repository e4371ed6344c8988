// The embedded limit store: the token bucket admits its burst then its rate, quotas reset with their
// window, concurrency holds come back, a batch counts all or nothing, and keys go once their window passed.
import { describe, expect, it } from 'vitest';
import { InMemoryLimitStore, type LimitCheck } from '../index.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const rate = (key: string, limit: number, windowMs: number, cost = 1): LimitCheck => ({
  kind: 'rate',
  key,
  limit,
  windowMs,
  cost,
});

describe('InMemoryLimitStore', () => {
  it('a rate admits a burst of `limit`, then one unit per windowMs/limit', () => {
    const time = clock();
    const store = new InMemoryLimitStore({ now: time.now });
    const check = [rate('k', 5, 10_000)];
    const burst = Array.from({ length: 5 }, () => store.consume(check)[0]);
    expect(burst.map((outcome) => outcome?.allowed)).toEqual([true, true, true, true, true]);
    expect(burst.map((outcome) => outcome?.remaining)).toEqual([4, 3, 2, 1, 0]);
    const refused = store.consume(check)[0];
    expect(refused).toEqual({ allowed: false, remaining: 0, resetMs: 10_000, retryAfterMs: 2_000 });
    time.advance(1_999);
    expect(store.consume(check)[0]?.allowed).toBe(false);
    time.advance(1);
    expect(store.consume(check)[0]).toMatchObject({ allowed: true, remaining: 0 });
    expect(store.consume(check)[0]?.allowed).toBe(false);
  });

  it('a cost weighs several units', () => {
    const store = new InMemoryLimitStore({ now: clock().now });
    expect(store.consume([rate('k', 10, 60_000, 4)])[0]).toMatchObject({ allowed: true, remaining: 6 });
    expect(store.consume([rate('k', 10, 60_000, 4)])[0]).toMatchObject({ allowed: true, remaining: 2 });
    expect(store.consume([rate('k', 10, 60_000, 4)])[0]).toMatchObject({
      allowed: false,
      remaining: 2,
      retryAfterMs: 12_000,
    });
  });

  it('a quota counts per fixed window aligned on the epoch', () => {
    const day = 86_400_000;
    const time = clock(10 * day + day - 1_000);
    const store = new InMemoryLimitStore({ now: time.now });
    const check: LimitCheck[] = [{ kind: 'quota', key: 'q', limit: 2, windowMs: day, cost: 1 }];
    expect(store.consume(check)[0]).toMatchObject({ allowed: true, remaining: 1, resetMs: 1_000 });
    expect(store.consume(check)[0]).toMatchObject({ allowed: true, remaining: 0 });
    expect(store.consume(check)[0]).toEqual({
      allowed: false,
      remaining: 0,
      resetMs: 1_000,
      retryAfterMs: 1_000,
    });
    time.advance(1_000);
    expect(store.consume(check)[0]).toMatchObject({ allowed: true, remaining: 1, resetMs: day });
  });

  it('concurrency holds are counted until released', () => {
    const store = new InMemoryLimitStore();
    const take = (holder: string) =>
      store.consume([{ kind: 'concurrency', key: 'c', limit: 2, holder }])[0]?.allowed;
    expect([take('a'), take('b'), take('c')]).toEqual([true, true, false]);
    store.release([{ key: 'c', holder: 'a' }]);
    expect(take('d')).toBe(true);
    store.release([
      { key: 'c', holder: 'b' },
      { key: 'c', holder: 'd' },
    ]);
    expect(store.size).toBe(0);
  });

  it('a batch counts all or nothing', () => {
    const store = new InMemoryLimitStore({ now: clock().now });
    store.consume([rate('narrow', 1, 60_000)]);
    const outcomes = store.consume([rate('wide', 10, 60_000), rate('narrow', 1, 60_000)]);
    expect(outcomes.map((outcome) => outcome.allowed)).toEqual([true, false]);
    // `wide` was not counted: still 9 left after the next admitted call.
    expect(store.consume([rate('wide', 10, 60_000)])[0]?.remaining).toBe(9);
  });

  it('keys are dropped once their window has passed, and the count stays bounded', () => {
    const time = clock();
    const store = new InMemoryLimitStore({ now: time.now, maxKeys: 3 });
    for (const key of ['a', 'b', 'c', 'd', 'e']) store.consume([rate(key, 10, 1_000)]);
    expect(store.size).toBe(3);
    time.advance(1_000);
    store.sweep();
    expect(store.size).toBe(0);
  });

  it('over maxKeys, the least recently used key is forgotten first', () => {
    const time = clock();
    const store = new InMemoryLimitStore({ now: time.now, maxKeys: 2 });
    store.consume([rate('a', 10, 60_000)]);
    store.consume([rate('b', 10, 60_000)]);
    time.advance(31_000);
    // `a` is used again more than half its window later: `b` is now the least recently used.
    store.consume([rate('a', 10, 60_000)]);
    store.consume([rate('c', 10, 60_000)]);
    expect(store.size).toBe(2);
    // `a` kept its count (one unit still spent from the call at 31 s); a forgotten key would start at 9.
    expect(store.consume([rate('a', 10, 60_000)])[0]?.remaining).toBe(8);
  });

  it('refuses bad options with a message naming the option', () => {
    expect(() => new InMemoryLimitStore({ maxKeys: 0 })).toThrow(/maxKeys must be an integer ≥ 1/);
    expect(() => new InMemoryLimitStore({ sweepIntervalMs: 1.5 })).toThrow(/sweepIntervalMs/);
    let thrown: unknown;
    try {
      new InMemoryLimitStore({ maxKeys: -1, sweepIntervalMs: 0, now: 5 as never });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'OPTIONS_INVALID',
      issues: [
        'maxKeys must be an integer ≥ 1 (got -1)',
        'sweepIntervalMs must be an integer from 1 to 2147483647 (got 0)',
        'now must be a function () => ms since the epoch (got 5)',
      ],
    });
  });
});
