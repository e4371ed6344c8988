// Request-state keys that rotate: signed with the current key, verified with the current or the previous
// one, re-read when a state fails to verify. The source here is a plain object; @pier/redis and the example
// app test the same with real replicas on a real redis-server.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import { RequestStateCodec } from './request-state.js';
import { type RequestStateKeySet, RotatingRequestStateCodec } from './request-state-keys.js';

const K1 = 'k1-0123456789abcdef0123456789abcdef';
const K2 = 'k2-0123456789abcdef0123456789abcdef';
const K3 = 'k3-0123456789abcdef0123456789abcdef';
const ctx = 'tools/call\0alice';
const lines: string[] = [];
const logger = createLogger({ scope: 'test', stream: { write: (line: string) => lines.push(line) > 0 } });

/** A shared source of keys (what Redis is for replicas), counting its reads; `down` makes it fail. */
function source(initial: RequestStateKeySet) {
  const shared = { keys: initial, reads: 0, down: false };
  const keys = {
    async read() {
      shared.reads++;
      if (shared.down) throw new Error('unreachable');
      return shared.keys;
    },
  };
  return { shared, keys };
}

function codec(keys: { read(): Promise<RequestStateKeySet> }, clock = { now: 0 }) {
  return new RotatingRequestStateCodec({ keys, logger, now: () => clock.now });
}

describe('RotatingRequestStateCodec', () => {
  it('a state signed before a rotation verifies after it (previous key); a later one with the new key', async () => {
    const { shared, keys } = source({ current: K1 });
    const clock = { now: 0 };
    const replica = codec(keys, clock);
    const before = await replica.mint({ n: 1 }, ctx);
    shared.keys = { current: K2, previous: K1 };
    clock.now += 6_000;
    const after = await replica.mint({ n: 2 }, ctx);
    expect(await replica.verify(before, ctx)).toEqual({ n: 1 });
    expect(await replica.verify(after, ctx)).toEqual({ n: 2 });
    // Once the previous key is dropped (a TTL after the rotation), the old state no longer verifies.
    shared.keys = { current: K2 };
    clock.now += 6_000;
    await expect(replica.verify(before, ctx)).rejects.toThrow();
  });

  it('a replica that has not noticed the rotation yet re-reads the keys when a state fails: never split', async () => {
    const a = source({ current: K1 });
    const replicaA = codec(a.keys);
    await replicaA.mint({ n: 0 }, ctx); // A read K1 and caches it
    a.shared.keys = { current: K2, previous: K1 };
    // B starts after the rotation and signs with K2; A still caches K1 but verifies by reading again.
    const replicaB = codec(a.keys);
    const state = await replicaB.mint({ n: 3 }, ctx);
    const reads = a.shared.reads;
    expect(await replicaA.verify(state, ctx)).toEqual({ n: 3 });
    expect(a.shared.reads).toBe(reads + 1);
    // And what A signed with its old key verifies on B (the previous key).
    expect(
      await replicaB.verify(await codec({ read: async () => ({ current: K1 }) }).mint({ n: 4 }, ctx), ctx),
    ).toEqual({ n: 4 });
  });

  it('a forged or rebound state fails with every key', async () => {
    const { keys } = source({ current: K2, previous: K1 });
    const replica = codec(keys);
    const forged = await codec({ read: async () => ({ current: K3 }) }).mint({ n: 5 }, ctx);
    await expect(replica.verify(forged, ctx)).rejects.toThrow();
    const state = await replica.mint({ n: 6 }, ctx);
    await expect(replica.verify(state, 'tools/call\0mallory')).rejects.toThrow();
  });

  it('reads at most every 5 s while states verify; an unreachable source keeps the last keys (logged once)', async () => {
    const { shared, keys } = source({ current: K1 });
    const clock = { now: 0 };
    const replica = codec(keys, clock);
    const state = await replica.mint({ n: 7 }, ctx);
    for (let i = 0; i < 10; i++) await replica.verify(state, ctx);
    expect(shared.reads).toBe(1);
    shared.down = true;
    clock.now += 6_000;
    expect(await replica.verify(state, ctx)).toEqual({ n: 7 });
    await replica.mint({ n: 8 }, ctx);
    expect(lines.filter((line) => line.includes('request-state keys not read'))).toHaveLength(1);
  });

  it('verifies what a fixed key of the same value signs; a source giving a short key is refused', async () => {
    const fixed = new RequestStateCodec({ key: K1 });
    expect(
      await codec({ read: async () => ({ current: K1 }) }).verify(await fixed.mint({ n: 9 }, ctx), ctx),
    ).toEqual({
      n: 9,
    });
    await expect(codec({ read: async () => ({ current: 'short' }) }).mint({ n: 0 }, ctx)).rejects.toThrow(
      /at least 32 bytes/,
    );
  });
});
