// export_notes under load and under failure, as clients meet it: 100 exports started at once (60 tasks of
// the tasks extension, 40 ordinary calls of the SDK v2 client) each get an archive of their own, and an
// export that fails on the filesystem tells the client "Internal error", never a server path, while the
// app's log (stderr) keeps the filesystem's message. /health does not show the path either.
import { readdir, readFile, rename } from 'node:fs/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, probe, removeLater, startHttpApp, tempDir } from './test-app.js';
import { addNotes, isFinal, rpc, type TaskAnswer, taskUntil } from './test-tasks.js';

const TEST_TIMEOUT_MS = 60_000;
afterEach(cleanUp);

/** Polls tasks/get until the task ended (bounded: the test fails on a task left running). */
async function finalTask(url: string, taskId: string): Promise<TaskAnswer> {
  const task = await taskUntil(url, taskId, isFinal, 30_000);
  if (task === undefined || !isFinal(task))
    throw new Error(`task ${taskId} still ${task?.status} after 30 s`);
  return task;
}

async function sdkClient(url: string): Promise<Client> {
  const client = new Client(
    { name: 'e2e-exports', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('export_notes', () => {
  it(
    '100 exports started at once each write an archive of their own (no collision, nothing left partial)',
    async () => {
      const dataDir = await tempDir();
      const app = await startHttpApp({ dataDir });
      await addNotes(app.url, 3);
      const client = await sdkClient(app.url);
      // All 100 in flight together: the issue saw 16–22 of them collide within one millisecond.
      const [tasks, calls] = await Promise.all([
        Promise.all(
          Array.from({ length: 60 }, () =>
            rpc(app.url, 'tools/call', { name: 'export_notes', arguments: {} }, 'export_notes'),
          ),
        ),
        Promise.all(
          Array.from({ length: 40 }, () => client.callTool({ name: 'export_notes', arguments: {} })),
        ),
      ]);
      await client.close();
      const files: string[] = [];
      for (const created of tasks) {
        expect(created.result).toMatchObject({ resultType: 'task' });
        const done = await finalTask(app.url, created.result?.taskId as string);
        expect(done, JSON.stringify(done)).toMatchObject({ status: 'completed' });
        files.push(done.result?.structuredContent?.file as string);
      }
      for (const called of calls) {
        expect(called.isError, JSON.stringify(called)).toBeFalsy();
        files.push((called.structuredContent as { file: string }).file);
      }
      expect(new Set(files).size).toBe(100);
      for (const file of files) expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(3);
      const names = await readdir(dataDir);
      expect(names.filter((name) => name.endsWith('.jsonl'))).toHaveLength(100);
      expect(names.filter((name) => name.endsWith('.partial'))).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'failing on the filesystem, tells the client "Internal error" (task and call), never the path; the log has it',
    async () => {
      const dataDir = await tempDir();
      const app = await startHttpApp({ dataDir });
      await addNotes(app.url, 2);
      // The data directory vanishes under the running app: every file operation fails with ENOENT '<path>'.
      await rename(dataDir, `${dataDir}.gone`);
      removeLater(`${dataDir}.gone`);
      const created = await rpc(
        app.url,
        'tools/call',
        { name: 'export_notes', arguments: {} },
        'export_notes',
      );
      const failed = await finalTask(app.url, created.result?.taskId as string);
      expect(failed).toMatchObject({ status: 'failed', error: { code: -32603, message: 'Internal error' } });
      const client = await sdkClient(app.url);
      const called = await client.callTool({ name: 'export_notes', arguments: {} });
      await client.close();
      expect(called).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Internal error' }] });
      const health = await probe(app.origin, '/health');
      expect(JSON.stringify(health.body)).toContain('the data directory is not writable (ENOENT)');
      for (const seen of [JSON.stringify(failed), JSON.stringify(called), JSON.stringify(health.body)]) {
        expect(seen).not.toContain(dataDir);
      }
      // Control: the failure really carried the path; the operator finds it in the log.
      expect(app.stderr()).toContain(`ENOENT: no such file or directory, open '${dataDir}/export-`);
    },
    TEST_TIMEOUT_MS,
  );
});
