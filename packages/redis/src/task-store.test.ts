// The TaskStore contract, run with the same assertions against core's in-memory default and the Redis
// store on a real redis-server; then what only the Redis store promises: keys under its prefix expiring
// with the task, nothing left behind, changes told to every replica, clear errors.
import { InMemoryTaskStore, type TaskRecord, type TaskStore } from '@pier/core';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PierRedisError, type RedisTaskStore, redisTaskStore } from './index.js';
import { ensureInstalled, freePort, type RedisProcess, startRedis } from './test-infra.js';

let redis: RedisProcess;
let raw: ReturnType<typeof createClient>;
const stores: RedisTaskStore[] = [];
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
/** A Redis store on a prefix of its own, closed after the file. */
async function redisStore(prefix = `test:tasks:${process.pid}:${++prefixes}:`): Promise<RedisTaskStore> {
  const store = redisTaskStore({ url: redis.url, prefix });
  stores.push(store);
  await store.ready;
  return store;
}

let ids = 0;
function record(fields: Partial<TaskRecord> = {}): TaskRecord {
  const now = Date.now();
  return {
    taskId: `task-${++ids}`,
    principal: 'alice',
    status: 'working',
    createdAt: new Date(now).toISOString(),
    lastUpdatedAt: new Date(now).toISOString(),
    ttlMs: 60_000,
    pollIntervalMs: 50,
    expiresAt: now + 60_000,
    ...fields,
  };
}

const until = async (check: () => boolean | Promise<boolean>, what: string, ms = 3_000) => {
  for (let waited = 0; !(await check()); waited += 20) {
    if (waited >= ms) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe.each([
  ['InMemoryTaskStore (the embedded default)', async (): Promise<TaskStore> => new InMemoryTaskStore()],
  ['redisTaskStore (real redis-server)', (): Promise<TaskStore> => redisStore()],
])('TaskStore contract: %s', (_name, make) => {
  let store: TaskStore;
  beforeAll(async () => {
    store = await make();
  });

  it('keeps what create stored, field for field, at version 1; unknown ids are undefined', async () => {
    const task = record({
      status: 'input_required',
      statusMessage: '1/3',
      inputRequests: { ok: { method: 'elicitation/create', params: { message: 'Sure?' } } as never },
      answers: { name: { action: 'accept', content: { name: 'Ada' } } },
    });
    expect(await store.create(task)).toEqual({ ...task, version: 1 });
    expect(await store.get(task.taskId)).toEqual({ ...task, version: 1 });
    expect(await store.get('no-such-task')).toBeUndefined();
  });

  it('refuses a second create with the same id, keeping the first', async () => {
    const task = record();
    await store.create(task);
    await expect(store.create({ ...task, status: 'failed' })).rejects.toThrow(/exists/);
    expect((await store.get(task.taskId))?.status).toBe('working');
  });

  it('updates by compare-and-set: the expected version wins once, a stale one changes nothing', async () => {
    const task = record();
    await store.create(task);
    const result = { content: [{ type: 'text', text: 'done' }] };
    expect(await store.update({ ...task, status: 'completed', result }, 1)).toEqual({
      ...task,
      status: 'completed',
      result,
      version: 2,
    });
    expect(await store.update({ ...task, status: 'cancelled' }, 1)).toBeUndefined();
    expect(await store.get(task.taskId)).toMatchObject({ status: 'completed', result, version: 2 });
    expect(await store.update(record({ taskId: 'never-created' }), 1)).toBeUndefined();
  });

  it('of 10 concurrent updates from one version, exactly one is applied', async () => {
    const task = record();
    await store.create(task);
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.update({ ...task, statusMessage: `writer ${i}` }, 1)),
    );
    const winners = outcomes.filter((outcome) => outcome !== undefined);
    expect(winners).toHaveLength(1);
    expect(await store.get(task.taskId)).toMatchObject({
      version: 2,
      statusMessage: winners[0]?.statusMessage,
    });
  });

  it('returns a task until its expiresAt, then nothing (updates too)', async () => {
    const task = record({ expiresAt: Date.now() + 300 });
    await store.create(task);
    expect(await store.get(task.taskId)).toMatchObject({ taskId: task.taskId });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await store.get(task.taskId)).toBeUndefined();
    expect(await store.update({ ...task, status: 'completed' }, 1)).toBeUndefined();
    const past = record({ expiresAt: Date.now() - 1 });
    await store.create(past);
    expect(await store.get(past.taskId)).toBeUndefined();
  });

  it('delete removes a task; deleting an unknown one resolves', async () => {
    const task = record();
    await store.create(task);
    await store.delete(task.taskId);
    expect(await store.get(task.taskId)).toBeUndefined();
    await expect(store.delete('no-such-task')).resolves.toBeUndefined();
  });
});

describe('redisTaskStore', () => {
  it('keeps one hash per task under its prefix, expiring at the task’s expiresAt; none left after expiry or delete', async () => {
    const prefix = `test:keys:${process.pid}:`;
    const store = await redisStore(prefix);
    const kept = record({ expiresAt: Date.now() + 30_000 });
    const brief = record({ expiresAt: Date.now() + 300 });
    await store.create(kept);
    await store.create(brief);
    expect((await raw.keys(`${prefix}*`)).sort()).toEqual([
      `${prefix}${kept.taskId}`,
      `${prefix}${brief.taskId}`,
    ]);
    const ttl = await raw.pTTL(`${prefix}${kept.taskId}`);
    expect(ttl).toBeGreaterThan(25_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
    // An update keeps the expiry: a task lives ttlMs after it was created, however often it changes.
    await store.update({ ...kept, status: 'completed' }, 1);
    expect(await raw.pTTL(`${prefix}${kept.taskId}`)).toBeLessThanOrEqual(ttl);
    await until(async () => (await raw.exists(`${prefix}${brief.taskId}`)) === 0, 'Redis to expire the key');
    await store.delete(kept.taskId);
    expect(await raw.keys(`${prefix}*`)).toEqual([]);
  });

  it('tells every replica’s watchers which task changed or was deleted (not created)', async () => {
    const prefix = `test:watch:${process.pid}:`;
    const a = await redisStore(prefix);
    const b = await redisStore(prefix);
    const other = await redisStore(`test:watch-other:${process.pid}:`);
    const seen: (string | undefined)[] = [];
    const unwatch = b.watch((taskId) => seen.push(taskId));
    const task = record();
    await a.create(task);
    await a.update({ ...task, status: 'cancelled' }, 1);
    await other.create(record({ taskId: 'elsewhere' }));
    await other.update(record({ taskId: 'elsewhere', status: 'cancelled' }), 1);
    await a.delete(task.taskId);
    await until(() => seen.length >= 2, 'two changes');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual([task.taskId, task.taskId]);
    unwatch();
    await a.update({ ...record(), taskId: 'gone' }, 1);
    await a.create(record({ taskId: 'late' }));
    await a.update(record({ taskId: 'late', status: 'completed' }), 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toHaveLength(2);
  });

  it('fails clearly: bad options (the URL never quoted), Redis unreachable, a duplicate id, use after close', async () => {
    const bad = (options: unknown) => {
      try {
        redisTaskStore(options as never);
      } catch (error) {
        return error as PierRedisError;
      }
      throw new Error('accepted');
    };
    expect(bad({})).toMatchObject({
      code: 'REDIS_OPTIONS_INVALID',
      message: /exactly one of url and client/,
    });
    const secret = bad({ url: 'http://user:hunter2@127.0.0.1:1' });
    expect(secret.message).toMatch(/redis:\/\//);
    expect(secret.message).not.toContain('hunter2');
    expect(bad({ url: redis.url, prefix: '' }).message).toMatch(/prefix/);
    expect(bad({ client: {} }).message).toMatch(/eval\(\)/);

    const closedPort = await freePort();
    const away = redisTaskStore({ url: `redis://127.0.0.1:${closedPort}`, connectTimeoutMs: 200 });
    stores.push(away);
    const failure = await away.create(record()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PierRedisError);
    expect(failure).toMatchObject({ code: 'REDIS_TASK_STORE_FAILED', message: /not connected to Redis/ });

    const store = await redisStore();
    const task = record();
    await store.create(task);
    await expect(store.create(task)).rejects.toMatchObject({ code: 'REDIS_TASK_STORE_FAILED' });
    await store.close();
    await expect(store.get(task.taskId)).rejects.toThrow(/after close/);
  });
});

describe('redisTaskStore while Redis is down', () => {
  it('fails commands clearly, and once Redis is back tells watchers to re-read (undefined) and works again', async () => {
    const errors: string[] = [];
    const store = redisTaskStore({
      url: redis.url,
      prefix: `test:outage:${process.pid}:`,
      connectTimeoutMs: 300,
      onerror: (error) => errors.push(error.code),
    });
    stores.push(store);
    await store.ready;
    const seen: (string | undefined)[] = [];
    store.watch((taskId) => seen.push(taskId));
    await redis.kill();
    try {
      const failure = await store.create(record()).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: 'REDIS_TASK_STORE_FAILED' });
    } finally {
      await redis.restart();
    }
    await until(() => seen.includes(undefined), 'the re-read hint after the reconnect', 8_000);
    expect(errors).toContain('REDIS_TASK_STORE_FAILED');
    const task = record();
    await until(
      () =>
        store.create(task).then(
          () => true,
          () => false,
        ),
      'a create after the outage',
      8_000,
    );
    expect(await store.get(task.taskId)).toMatchObject({ version: 1 });
  });
});
