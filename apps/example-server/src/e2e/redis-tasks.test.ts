// Two processes of the app sharing a real redis-server through REDIS_URL: an export_notes task started on
// one is seen and cancelled through the other, and the cancel stops the export running on the first (its
// partial file removed, no archive written). Negative control: without REDIS_URL the other process does not know the task.
// Redis stopped while an export runs and restarted (with its data, as a Redis with AOF is): the export
// finishes during the outage and its task turns `completed` once Redis is back; a process stopped while
// its export runs leaves the task `failed`, never `working` until its TTL.
import { readdir, readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AppProcess } from './test-app.js';
import { cleanUp, startHttpApp, tempDir } from './test-app.js';
import { ensureInstalled, type RedisProcess, startRedis, stopChild } from './test-fleet.js';
import { addNotes, rpc, type TaskAnswer, taskUntil } from './test-tasks.js';

const TEST_TIMEOUT_MS = 60_000;
afterEach(cleanUp);

let redis: RedisProcess | undefined;
let redisUrl = '';
beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
  redisUrl = redis.url;
}, 300_000);
afterAll(async () => {
  await redis?.stop();
});

/** Two processes of the app (REDIS_URL or not), the first with 100 notes; `start` starts an export on it. */
async function exportOnFirst(env: NodeJS.ProcessEnv) {
  const dataDir = await tempDir();
  const [a, b] = await Promise.all([startHttpApp({ dataDir, env }), startHttpApp({ env })]);
  await addNotes(a.url, 100);
  const start = async () => {
    const created = await rpc(a.url, 'tools/call', { name: 'export_notes', arguments: {} }, 'export_notes');
    expect(created.result).toMatchObject({ resultType: 'task' });
    return created.result?.taskId as string;
  };
  return { a, b, dataDir, start };
}

describe('export_notes tasks across two processes', () => {
  it(
    'with REDIS_URL, the other process sees the task and its cancel stops the export on the first',
    async () => {
      const { a, b, dataDir, start } = await exportOnFirst({ REDIS_URL: redisUrl });
      let taskId = '';
      // An export of 100 notes may finish before a cancel sent through the other process arrives (the
      // tasks are fast on a quiet machine, and a cancel of a finished task is acknowledged all the same, as
      // the spec says): such an attempt proves nothing, so another export is started, at most 5 times. The
      // cancel is sent first, then the task is read through both processes.
      for (let attempt = 0; attempt < 5 && taskId === ''; attempt++) {
        const started = await start();
        const cancel = await rpc(b.url, 'tasks/cancel', { taskId: started }, started);
        expect(cancel.error).toBeUndefined();
        const status = (await rpc(a.url, 'tasks/get', { taskId: started }, started)).result?.status;
        if (status !== 'completed') taskId = started;
      }
      expect(taskId, 'no export was still running when its cancel arrived, in 5 attempts').not.toBe('');
      expect((await rpc(b.url, 'tasks/get', { taskId }, taskId)).result).toMatchObject({ taskId });
      expect((await rpc(a.url, 'tasks/get', { taskId }, taskId)).result?.status).toBe('cancelled');
      // The export on the first process stops at its next note and removes what it wrote: no partial file
      // left, and no archive beyond those of the attempts that completed (a run the cancel missed would
      // finish and add one).
      const archives = async () => (await readdir(dataDir)).filter((name) => name.endsWith('.jsonl')).length;
      const completed = await archives();
      const deadline = Date.now() + 20_000;
      while ((await readdir(dataDir)).some((name) => name.endsWith('.partial'))) {
        if (Date.now() > deadline) throw new Error('the export on the first process was not stopped');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await archives()).toBe(completed);
      expect((await rpc(b.url, 'tasks/get', { taskId }, taskId)).result?.status).toBe('cancelled');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'without REDIS_URL (negative control), the other process does not know the task (-32602)',
    async () => {
      const { a, b, start } = await exportOnFirst({});
      const taskId = await start();
      expect((await rpc(b.url, 'tasks/get', { taskId }, taskId)).error).toMatchObject({ code: -32602 });
      expect((await rpc(b.url, 'tasks/cancel', { taskId }, taskId)).error).toMatchObject({ code: -32602 });
      await rpc(a.url, 'tasks/cancel', { taskId }, taskId);
    },
    TEST_TIMEOUT_MS,
  );
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const archives = async (dir: string) => (await readdir(dir)).filter((name) => name.endsWith('.jsonl'));
const partials = async (dir: string) =>
  (await readdir(dir)).filter((name) => name.endsWith('.partial')).length;

/** Polls `check` every 20 ms until it holds; `false` after `ms`. */
async function until(check: () => Promise<boolean>, ms = 20_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
}

describe('export_notes tasks when Redis or the process goes away', () => {
  it('an export that ends while Redis is down is saved completed once Redis is back (not left working)', async () => {
    const persisted = await startRedis({ persist: true });
    try {
      const dataDir = await tempDir();
      const app = await startHttpApp({ dataDir, env: { REDIS_URL: persisted.url } });
      await addNotes(app.url, 400, 10);
      // The export must be writing when Redis goes down and end before it is back: an attempt that
      // finished first proves nothing, so another one starts (at most 5).
      let taskId = '';
      let ended = false;
      for (let attempt = 0; attempt < 5 && !ended; attempt++) {
        const before = await archives(dataDir);
        const created = await rpc(
          app.url,
          'tools/call',
          { name: 'export_notes', arguments: {} },
          'export_notes',
        );
        taskId = created.result?.taskId as string;
        expect(taskId).toBeTruthy();
        await until(
          async () => (await partials(dataDir)) > 0 || (await archives(dataDir)).length > before.length,
        );
        await persisted.stop();
        if ((await archives(dataDir)).length > before.length) {
          await persisted.restart();
          await taskUntil(app.url, taskId, (task) => task.status === 'completed');
          continue;
        }
        // Redis is down while the export writes: wait for its run to end, keep Redis down a while longer.
        ended = await until(async () => (await partials(dataDir)) === 0);
        await sleep(3_000);
        await persisted.restart();
      }
      expect(ended, 'no export was still running when Redis stopped, in 5 attempts').toBe(true);
      const task = await taskUntil(app.url, taskId, (got) => got.status !== 'working', 15_000);
      expect(task).toMatchObject({ status: 'completed' });
      // The final status replaced the progress message.
      expect(task?.statusMessage).toBeUndefined();
      const file = task?.result?.structuredContent?.file ?? '';
      expect(await archives(dataDir)).toContain(file.split('/').at(-1));
      expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(400);
      // It was saved by retrying, after the first attempt failed during the outage.
      expect(app.stderr()).toContain('task status not saved; retrying');
    } finally {
      await persisted.stop();
    }
  }, 90_000);

  it(
    'a process stopped while its export runs leaves the task failed, seen through another process',
    async () => {
      const dataDir = await tempDir();
      const env = { REDIS_URL: redisUrl };
      const b = await startHttpApp({ env });
      // 1,200 notes: an export long enough (a write and an fsync a note) that a stop sent as it starts
      // writing lands while it runs; with 400, a fast disk let all five attempts finish first once in CI.
      await addNotes(b.url, 1_200, 10);
      // The notes are in Redis: each attempt starts a fresh first process and stops it (SIGINT) as soon as
      // its export writes. An export that finished first proves nothing: another attempt (at most 5).
      let task: TaskAnswer | undefined;
      for (let attempt = 0; attempt < 5 && task?.status !== 'failed'; attempt++) {
        const a = await startHttpApp({ dataDir, env });
        const created = await rpc(
          a.url,
          'tools/call',
          { name: 'export_notes', arguments: {} },
          'export_notes',
        );
        const taskId = created.result?.taskId as string;
        expect(taskId).toBeTruthy();
        await until(async () => (await partials(dataDir)) > 0);
        await stopProcess(a, 'SIGINT');
        task = await taskUntil(b.url, taskId, (got) => got.status !== 'working', 5_000);
        expect(task?.status, JSON.stringify(task)).not.toBe('working');
      }
      expect(task).toMatchObject({
        status: 'failed',
        error: { code: -32603, message: 'the server shut down before the task finished' },
      });
    },
    TEST_TIMEOUT_MS,
  );
});

/** Stops the app by its PID with `signal` and waits for it to exit. */
async function stopProcess(app: AppProcess, signal: NodeJS.Signals): Promise<void> {
  await stopChild(app.child, signal);
}
