// Input-required keys that rotate across replicas, on a real redis-server: Pier replicas in this process
// (each with its own Redis connections, as processes would have), the SDK v2 client answering an
// elicitation whose round 1 goes to one replica and round 2 to another. Deleting the key (or rotate())
// never splits the fleet: a round begun before on an old replica finishes on a replica started after, and
// the other way round. Negative control: the old behaviour, a key read once at start, splits it.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PierRedisError, redisRequestStateKeys } from './index.js';
import type { RedisRequestStateKeys } from './request-state-keys.js';
import { ensureInstalled, type RedisProcess, startRedis } from './test-infra.js';
import { type Replica, startReplicas, stopReplicas } from './test-replicas.js';

let redis: RedisProcess;
let raw: ReturnType<typeof createClient>;
const started: Replica[][] = [];
const sources: RedisRequestStateKeys[] = [];
beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
  raw = createClient({ url: redis.url });
  await raw.connect();
}, 120_000);
afterEach(async () => {
  await Promise.all(started.splice(0).map((replicas) => stopReplicas(replicas)));
  await Promise.all(sources.splice(0).map((source) => source.close()));
});
afterAll(async () => {
  await raw?.close();
  await redis?.stop();
});

let prefixes = 0;
/** A fresh key name per test: tests share the Redis. */
const keyName = () => `test:${process.pid}:${++prefixes}:request-state-key`;

/** Replicas whose keys come from Redis (`redisRequestStateKeys`), named from `r<first>`. */
async function rotating(count: number, key: string, first = 1): Promise<Replica[]> {
  const replicas = await startReplicas(count, {
    first,
    requestState: () => {
      const keys = redisRequestStateKeys({ url: redis.url, key });
      sources.push(keys);
      return { keys };
    },
  });
  started.push(replicas);
  return replicas;
}

/**
 * The SDK v2 client (2026-07-28) calling `greet`, which asks the user's name: round 1 goes to `first`,
 * round 2 — the retry carrying `requestState` and the answer — to `second`. Resolves with the tool's text,
 * or rejects as the client does when round 2 is refused.
 */
async function greetAcross(first: Replica, second: Replica): Promise<string> {
  const routed: typeof fetch = (input, init) => {
    const retry = typeof init?.body === 'string' && init.body.includes('"requestState"');
    return fetch(retry ? second.url : input, init);
  };
  const client = new Client(
    { name: 'rotation', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { name: 'Ada' },
  }));
  await client.connect(new StreamableHTTPClientTransport(new URL(first.url), { fetch: routed }));
  try {
    const result = (await client.callTool({ name: 'greet', arguments: {} })) as {
      content: { text: string }[];
    };
    return result.content[0]?.text ?? '';
  } finally {
    await client.close();
  }
}

describe('redisRequestStateKeys', () => {
  it('deleting the key rotates it: rounds cross old and new replicas both ways, the fleet never splits', async () => {
    const key = keyName();
    const [a, b] = await rotating(2, key);
    expect(await greetAcross(a as Replica, b as Replica)).toBe('Hello Ada, from r2');
    const before = await raw.get(key);
    expect(Buffer.byteLength(before ?? '')).toBeGreaterThanOrEqual(32);
    await raw.del(key);
    // A replica started after the deletion makes the new key when it first needs one; a and b still hold
    // the old one. Begun on an old replica (signed with the old key), finished on the new one: the
    // previous key.
    const [c] = (await rotating(1, key, 3)) as [Replica];
    expect(await greetAcross(a as Replica, c)).toBe('Hello Ada, from r3');
    const after = await raw.get(key);
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
    expect(await raw.get(`${key}:previous`)).toBe(before);
    // Begun on the new one (the new key), finished on an old one, which re-reads the keys and notices.
    expect(await greetAcross(c, b as Replica)).toBe('Hello Ada, from r2');
    expect(await greetAcross(b as Replica, a as Replica)).toBe('Hello Ada, from r1');
  });

  it('rotate(): a round begun before the rotation finishes after it, on a replica that never saw the old key', async () => {
    const key = keyName();
    const [a] = (await rotating(1, key)) as [Replica];
    // a reads the key (and keeps it a few seconds): its next round 1 is signed with the old key.
    expect(await greetAcross(a, a)).toBe('Hello Ada, from r1');
    const admin = redisRequestStateKeys({ url: redis.url, key });
    sources.push(admin);
    const old = (await admin.read()).current;
    await admin.rotate();
    const rotated = await admin.read();
    expect(rotated.current).not.toBe(old);
    expect(rotated.previous).toBe(old);
    expect(await raw.ttl(`${key}:previous`)).toBeGreaterThan(600);
    const [d] = (await rotating(1, key, 4)) as [Replica];
    expect(await greetAcross(a, d)).toBe('Hello Ada, from r4');
    expect(await greetAcross(d, a)).toBe('Hello Ada, from r1');
  });

  it('two replicas reading a missing key at once agree on one (created in one script)', async () => {
    const key = keyName();
    const readers = Array.from({ length: 8 }, () => redisRequestStateKeys({ url: redis.url, key }));
    sources.push(...readers);
    const keys = await Promise.all(readers.map((reader) => reader.read()));
    expect(new Set(keys.map((set) => set.current)).size).toBe(1);
  });

  it('an unreachable Redis fails read() within connectTimeoutMs, without quoting the URL', async () => {
    const keys = redisRequestStateKeys({ url: 'redis://user:s3cret@127.0.0.1:9', connectTimeoutMs: 200 });
    sources.push(keys);
    const error = await keys.read().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PierRedisError);
    expect(error).toMatchObject({ code: 'REDIS_KEYS_FAILED' });
    expect(String(error)).not.toContain('s3cret');
    expect(() => redisRequestStateKeys({ url: 'http://x', ttlSeconds: 0 } as never)).toThrow(
      /url must be a redis:\/\/[\s\S]*ttlSeconds must be an integer ≥ 1/,
    );
  });
});

describe('negative control: a key read once at start (the old behaviour)', () => {
  /** What the example app did: SET NX a random key, read it once, use it as a fixed key for good. */
  async function readOnce(key: string): Promise<string> {
    await raw.set(key, Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'), {
      condition: 'NX',
    });
    return (await raw.get(key)) as string;
  }

  it('after the key is deleted, a replica started later signs with another key: the fleet splits (-32602)', async () => {
    const key = keyName();
    const old = await startReplicas(2, { requestState: async () => ({ key: await readOnce(key) }) });
    started.push(old);
    const [a] = old as [Replica];
    await raw.del(key);
    const later = await startReplicas(1, {
      first: 3,
      requestState: async () => ({ key: await readOnce(key) }),
    });
    started.push(later);
    const [c] = later as [Replica];
    const refused = await greetAcross(a, c).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: -32602 });
  });
});
