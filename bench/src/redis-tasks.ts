// `pnpm redis-tasks [n]`: what keeping tasks in Redis costs. Per-operation latency of the TaskStore
// methods (create, get, update) with core's in-memory default and with `@pier/redis`'s redisTaskStore on a
// local redis-server (loopback, no persistence); and how long a change made through one replica's store
// takes to reach another replica's watcher — the path a cross-replica `tasks/cancel` takes to abort a run.
// Needs `redis-server` on PATH (Debian: `apt-get install -y redis-server`).
import { InMemoryTaskStore, type TaskRecord, type TaskStore } from '@pier/core';
import { redisTaskStore } from '@pier/redis';
import { startRedisServer } from './harness/children.js';

const n = Number(process.argv[2] ?? 2_000);

function record(i: number): TaskRecord {
  const now = Date.now();
  const at = new Date(now).toISOString();
  return {
    taskId: `bench-${i}`,
    principal: '',
    status: 'working',
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs: 600_000,
    pollIntervalMs: 1000,
    expiresAt: now + 600_000,
    answers: {},
  };
}

function percentiles(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return `p50 ${(at(50) * 1000).toFixed(0)} µs, p99 ${(at(99) * 1000).toFixed(0)} µs`;
}

async function timed(run: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await run(i);
    samples.push(performance.now() - start);
  }
  return samples;
}

async function operations(name: string, store: TaskStore): Promise<void> {
  const create = await timed((i) => store.create(record(i)));
  const get = await timed((i) => store.get(`bench-${i}`));
  const update = await timed((i) => store.update({ ...record(i), statusMessage: 'half way' }, 1));
  console.log(
    `${name}: create ${percentiles(create)}; get ${percentiles(get)}; update ${percentiles(update)}`,
  );
}

const redis = await startRedisServer();
try {
  await operations('InMemoryTaskStore', new InMemoryTaskStore());
  const prefix = `bench:tasks:${process.pid}:`;
  const a = redisTaskStore({ url: redis.url, prefix });
  const b = redisTaskStore({ url: redis.url, prefix });
  await Promise.all([a.ready, b.ready]);
  await operations('redisTaskStore', a);
  // A change through replica A's store, heard by replica B's watcher (the cross-replica cancel path).
  const heard = new Map<string, () => void>();
  b.watch((taskId) => {
    if (taskId !== undefined) heard.get(taskId)?.();
  });
  const crossing = await timed(async (i) => {
    const arrived = new Promise<void>((resolve) => heard.set(`bench-${i}`, resolve));
    await a.update({ ...record(i), status: 'cancelled' }, 2);
    await arrived;
    heard.delete(`bench-${i}`);
  });
  console.log(`change through replica A heard by replica B (update + pub/sub): ${percentiles(crossing)}`);
  await Promise.all([a.close(), b.close()]);
} finally {
  redis.child.kill('SIGTERM');
}
