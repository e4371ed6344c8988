// Scale-out parts against a real redis-server: notes shared by two clients (two replicas), the
// input-required keys read from Redis, and no REDIS_URL in any error.
import { createLogger } from '@pier/core';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureInstalled, freePort, type RedisProcess, startRedis } from './e2e/test-fleet.js';
import { FileNotesStore } from './notes-store.js';
import { type NotesRedisClient, notesKeys, RedisNotesStore } from './redis-notes-store.js';
import { REQUEST_STATE_REDIS_KEY, scaleOutParts } from './scale-out.js';

// Generous bounds against hangs on a loaded machine (never timing assertions).
vi.setConfig({ testTimeout: 30_000 });

let redis: RedisProcess;
const clients: { close(): Promise<void> }[] = [];
beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
}, 120_000);
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await redis?.stop();
});

async function client() {
  const made = createClient({ url: redis.url });
  clients.push(made);
  await made.connect();
  return made;
}
const silent = createLogger({ scope: 'test', stream: { write: () => true } });

describe('RedisNotesStore', () => {
  it('two replicas (two clients) see the same notes, oldest first, and either one deletes', async () => {
    const prefix = `t1:${process.pid}:`;
    const [a, b] = [
      new RedisNotesStore((await client()) as unknown as NotesRedisClient, prefix),
      new RedisNotesStore((await client()) as unknown as NotesRedisClient, prefix),
    ];
    const first = await a.add({ title: 'Groceries', body: 'milk, eggs', tags: ['home'] });
    const second = await b.add({ title: 'Deploy', body: 'roll out v2', tags: ['work'] });
    const third = await a.add({ title: 'Call', body: 'the plumber' });
    expect((await b.list()).map((note) => note.id)).toEqual([first.id, second.id, third.id]);
    expect(await b.get(first.id)).toEqual(first);
    expect((await b.search('EGGS')).map((note) => note.id)).toEqual([first.id]);
    expect(await b.delete(first.id)).toBe(true);
    expect(await a.delete(first.id)).toBe(false);
    expect(await a.get(first.id)).toBeUndefined();
    expect((await a.list()).map((note) => note.title)).toEqual(['Deploy', 'Call']);
  });

  it('behaves as the file store for the same operations (one contract, two stores)', async () => {
    const redisStore = new RedisNotesStore(
      (await client()) as unknown as NotesRedisClient,
      `t2:${process.pid}:`,
    );
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'pier-notes-contract-'));
    try {
      const fileStore = await FileNotesStore.open(dir);
      for (const store of [redisStore, fileStore]) {
        const note = await store.add({ title: 'T', body: 'needle in a haystack', tags: ['x'] });
        await store.add({ title: 'U', body: 'hay' });
        expect((await store.list()).map((n) => n.title)).toEqual(['T', 'U']);
        expect((await store.search('NEEDLE')).map((n) => n.id)).toEqual([note.id]);
        expect(await store.delete(note.id)).toBe(true);
        expect(await store.delete(note.id)).toBe(false);
        expect((await store.list()).map((n) => n.title)).toEqual(['U']);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a value in the hash that is not a note, naming the key', async () => {
    const prefix = `t3:${process.pid}:`;
    const raw = await client();
    await raw.hSet(notesKeys(prefix).notes, 'bad', '{"id":1}');
    const store = new RedisNotesStore(raw as unknown as NotesRedisClient, prefix);
    await expect(store.get('bad')).rejects.toThrow(`a value in the Redis hash ${prefix}notes is not a note`);
  });
});

describe('scaleOutParts', () => {
  it('gives every replica the same input-required keys, read from Redis (REQUEST_STATE_KEY wins)', async () => {
    const raw = await client();
    await raw.del(REQUEST_STATE_REDIS_KEY);
    const parts = await Promise.all([
      scaleOutParts({ redisUrl: redis.url, logger: silent }),
      scaleOutParts({ redisUrl: redis.url, logger: silent }),
    ]);
    try {
      // The key exists once a replica started, made by one of them (in one script: never two).
      const stored = await raw.get(REQUEST_STATE_REDIS_KEY);
      expect(Buffer.byteLength(stored ?? '')).toBeGreaterThanOrEqual(32);
      const read = await Promise.all(parts.map((part) => part.requestState.keys?.read()));
      expect(read.map((keys) => keys?.current)).toEqual([stored, stored]);
      expect(parts[0].healthChecks.map((check) => [check.name, check.critical])).toEqual([['redis', false]]);
      // REQUEST_STATE_KEY wins over the shared one.
      const own = await scaleOutParts({
        redisUrl: redis.url,
        requestStateKey: 'k'.repeat(32),
        logger: silent,
      });
      expect(own.requestState).toEqual({ key: 'k'.repeat(32) });
      await own.close();
    } finally {
      await Promise.all(parts.map((part) => part.close()));
    }
  });

  it('gives up on an unreachable Redis within the bound, without quoting REDIS_URL or its password', async () => {
    const url = `redis://app:pw-${process.pid}-secret@127.0.0.1:${await freePort()}`;
    const error = await scaleOutParts({ redisUrl: url, logger: silent, connectTimeoutMs: 1_000 }).catch(
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('Redis (REDIS_URL) did not answer within 1000 ms');
    expect((error as Error).message).not.toContain('secret');
  });
});
