// Two processes of the app sharing a real redis-server through REDIS_URL: an export_notes task started on
// one is seen and cancelled through the other, and the cancel stops the export running on the first (its
// partial file removed, no archive written). Negative control: without REDIS_URL the other process does not know the task.
import { readdir } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, startHttpApp, tempDir } from './test-app.js';
import { ensureInstalled, type RedisProcess, startRedis } from './test-fleet.js';
import { addNotes, rpc } from './test-tasks.js';

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
