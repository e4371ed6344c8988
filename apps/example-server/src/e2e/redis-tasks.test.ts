// Two processes of the app sharing a real redis-server through REDIS_URL: an export_notes task started on
// one is seen and cancelled through the other, and the cancel stops the export running on the first (no
// archive left). Negative control: without REDIS_URL the other process does not know the task.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, startHttpApp, tempDir } from './test-app.js';

const TEST_TIMEOUT_MS = 60_000;
const TASKS = 'io.modelcontextprotocol/tasks';
afterEach(cleanUp);

let redis: ChildProcess | undefined;
let redisUrl = '';
beforeAll(async () => {
  redisUrl = await startRedis();
}, 300_000);
afterAll(async () => {
  if (redis?.pid !== undefined && redis.exitCode === null) {
    const exited = new Promise((resolve) => redis?.once('exit', resolve));
    process.kill(redis.pid, 'SIGTERM');
    await exited;
  }
});

/** A redis-server from Debian's package (installed with apt-get when missing and possible) on a free port. */
async function startRedis(): Promise<string> {
  const found = () => {
    try {
      execFileSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (!found()) {
    const how = 'apt-get update && apt-get install -y redis-server';
    if (process.getuid?.() !== 0)
      throw new Error(`these tests need redis-server; install it first: sudo ${how}`);
    execFileSync('sh', ['-c', how], { stdio: 'ignore', timeout: 240_000 });
    if (!found()) throw new Error(`redis-server still missing after ${how}`);
  }
  const port = await new Promise<number>((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as { port: number };
      probe.close(() => resolve(free));
    });
  });
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  redis = child;
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${seen}`)), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${String(code)}:\n${seen}`));
    });
  });
  return `redis://127.0.0.1:${port}`;
}

let nextId = 1;
async function rpc(url: string, method: string, params: Record<string, unknown>, name: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'e2e-redis-tasks', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
        },
      },
    }),
  });
  const text = await res.text();
  const json = text.startsWith('{')
    ? text
    : (text
        .match(/^data: (.*)$/gm)
        ?.at(-1)
        ?.slice(6) ?? 'null');
  return JSON.parse(json) as { result?: Record<string, unknown>; error?: { code: number } };
}

async function addNotes(url: string, count: number): Promise<void> {
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  for (let i = 0; i < count; i++) {
    await client.callTool({ name: 'add_note', arguments: { title: `Note ${i}`, body: `body ${i}` } });
  }
  await client.close();
}

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
      // tasks are fast on a quiet machine): such an attempt proves nothing, so another export is started,
      // at most 5 times. The cancel is sent first, then the task is read through both processes.
      for (let attempt = 0; attempt < 5 && taskId === ''; attempt++) {
        const started = await start();
        const cancel = await rpc(b.url, 'tasks/cancel', { taskId: started }, started);
        if (cancel.error === undefined) taskId = started;
        else
          expect((await rpc(a.url, 'tasks/get', { taskId: started }, started)).result?.status).toBe(
            'completed',
          );
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
