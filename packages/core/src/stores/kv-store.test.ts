import { describe, expect, it } from 'vitest';
import { PierError } from '../errors.js';
import { InMemoryKeyValueStore } from './kv-store.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('InMemoryKeyValueStore', () => {
  it('keeps a value until its TTL, then forgets it', async () => {
    const time = clock();
    const store = new InMemoryKeyValueStore({ now: time.now });
    await store.set('a', 'one', 1_000);
    expect(await store.get('a')).toBe('one');
    time.advance(999);
    expect(await store.get('a')).toBe('one');
    time.advance(1);
    expect(await store.get('a')).toBeUndefined();
    expect(store.size.entries).toBe(0);
  });

  it('add writes only when the key holds nothing (or only an expired value)', async () => {
    const time = clock();
    const store = new InMemoryKeyValueStore({ now: time.now });
    expect(await store.add('k', 'first', 1_000)).toBe(true);
    expect(await store.add('k', 'second', 1_000)).toBe(false);
    expect(await store.get('k')).toBe('first');
    time.advance(1_000);
    expect(await store.add('k', 'third', 1_000)).toBe(true);
    expect(await store.get('k')).toBe('third');
  });

  it('take gives a value to exactly one of many concurrent callers', async () => {
    const store = new InMemoryKeyValueStore();
    await store.set('code', 'secret', 60_000);
    const taken = await Promise.all(Array.from({ length: 20 }, () => store.take('code')));
    expect(taken.filter((value) => value === 'secret')).toHaveLength(1);
    expect(await store.get('code')).toBeUndefined();
    expect(await store.take('code')).toBeUndefined();
  });

  it('delete removes; set replaces the value and the TTL', async () => {
    const time = clock();
    const store = new InMemoryKeyValueStore({ now: time.now });
    await store.set('k', 'v1', 100);
    await store.set('k', 'v2', 10_000);
    time.advance(500);
    expect(await store.get('k')).toBe('v2');
    await store.delete('k');
    await store.delete('never-there');
    expect(await store.get('k')).toBeUndefined();
    expect(store.size).toEqual({ entries: 0, chars: 0 });
  });

  it('is bounded: expired entries go first, then the oldest live ones', async () => {
    const time = clock();
    const store = new InMemoryKeyValueStore({ maxEntries: 3, now: time.now });
    await store.set('short', 'x', 10);
    await store.set('old', 'x', 60_000);
    await store.set('mid', 'x', 60_000);
    time.advance(10);
    await store.set('new', 'x', 60_000);
    // The expired entry made room; nothing live was lost.
    expect(await Promise.all(['old', 'mid', 'new'].map((k) => store.get(k)))).toEqual(['x', 'x', 'x']);
    await store.set('newest', 'x', 60_000);
    expect(await store.get('old')).toBeUndefined();
    expect(store.size.entries).toBe(3);
    // A flood of writes never grows it past the bound.
    for (let i = 0; i < 1_000; i++) await store.set(`flood-${i}`, 'x', 60_000);
    expect(store.size.entries).toBe(3);
  });

  it('is bounded in characters too', async () => {
    const store = new InMemoryKeyValueStore({ maxChars: 100 });
    await store.set('a', 'x'.repeat(40), 60_000);
    await store.set('b', 'x'.repeat(40), 60_000);
    await store.set('c', 'x'.repeat(40), 60_000);
    expect(await store.get('a')).toBeUndefined();
    expect(store.size.chars).toBeLessThanOrEqual(100);
    await expect(store.set('d', 'x'.repeat(200), 60_000)).rejects.toThrow(/cannot fit/);
  });

  it('rejects bad arguments with a PierError that never quotes the value', async () => {
    const store = new InMemoryKeyValueStore();
    await expect(store.set('', 'v', 1)).rejects.toBeInstanceOf(PierError);
    await expect(store.set('k', 'v', 0)).rejects.toThrow(/ttlMs must be a positive number/);
    await expect(store.set('k', 'v', Number.NaN)).rejects.toThrow(/ttlMs/);
    const failure = await store.set('k', { secret: 'hunter2' } as never, 1).catch((error: Error) => error);
    expect(String(failure)).not.toContain('hunter2');
    expect(() => new InMemoryKeyValueStore({ maxEntries: 0 })).toThrow(
      /maxEntries must be a positive integer/,
    );
  });
});
