// Tools as tasks (io.modelcontextprotocol/tasks), seen from the SDK's own 2026-07-28 client, and the
// task store seam: a store passed to createServer is the one tasks live in.
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineServer, defineTool } from '../declaring/define.js';
import { createServer, type PierServer } from '../server/create-server.js';
import { InMemoryTaskStore, type StoredTask, type TaskRecord, type TaskStore } from '../stores/task-store.js';
import { quiet } from '../test-helpers.js';
import { serveTransport } from '../transports/serve.js';
import { TASKS_EXTENSION_ID } from './tasks.js';

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

/** A store of the user's own: records what Pier asked of it, keeps tasks in a plain map. */
class RecordingStore implements TaskStore {
  readonly calls: string[] = [];
  readonly tasks = new Map<string, StoredTask>();
  async create(task: TaskRecord) {
    this.calls.push(`create ${task.status}`);
    const stored = { ...task, version: 1 };
    this.tasks.set(task.taskId, stored);
    return stored;
  }
  async get(taskId: string) {
    return this.tasks.get(taskId);
  }
  async update(task: TaskRecord, expectedVersion: number) {
    const current = this.tasks.get(task.taskId);
    if (current?.version !== expectedVersion) return undefined;
    this.calls.push(`update ${task.status}`);
    const stored = { ...task, version: expectedVersion + 1 };
    this.tasks.set(task.taskId, stored);
    return stored;
  }
  async delete(taskId: string) {
    this.tasks.delete(taskId);
  }
}

function tasksServer(store?: TaskStore): PierServer {
  return createServer(
    defineServer({
      name: 'tasks',
      version: '1.0.0',
      tools: [
        defineTool({
          name: 'export',
          input: { items: z.number() },
          task: 'optional',
          handler: async ({ items }, ctx) => {
            await new Promise((resolve) => setTimeout(resolve, 30));
            if (ctx.signal.aborted) throw new Error('cancelled');
            return `exported ${items} items`;
          },
        }),
        defineTool({
          name: 'confirm',
          task: 'required',
          handler: async (_args, ctx) => {
            const answer = await ctx.elicit({
              message: 'Sure?',
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
            });
            return answer.action === 'accept' && answer.content?.ok === true ? 'confirmed' : 'declined';
          },
        }),
      ],
    }),
    { ...quiet, ...(store !== undefined && { tasks: { store, ttlMs: 60_000, pollIntervalMs: 50 } }) },
  );
}

/**
 * A raw 2026-07-28 client over an in-memory link: the SDK's own client refuses a `resultType: 'task'`
 * (it does not implement the extension), so requests go out with the `_meta` envelope by hand.
 */
async function connect(server: PierServer, capabilities: Record<string, unknown>): Promise<RawClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = await serveTransport(server, serverSide);
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  clientSide.onmessage = (message) => {
    const { id } = message as { id?: number };
    if (id !== undefined) waiting.get(id)?.(message as Record<string, unknown>);
  };
  await clientSide.start();
  closers.push(async () => {
    await clientSide.close();
    await handle.close();
  });
  let next = 1;
  return {
    async request(method, params) {
      const id = next++;
      const answered = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
      await clientSide.send({
        jsonrpc: '2.0',
        id,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': capabilities,
            'io.modelcontextprotocol/clientInfo': { name: 'tasks-test', version: '1.0.0' },
          },
        },
      });
      const message = await answered;
      if (message.error !== undefined) throw message.error;
      return message.result as Record<string, unknown>;
    },
  };
}

interface RawClient {
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
}

const WITH_TASKS = { elicitation: {}, extensions: { [TASKS_EXTENSION_ID]: {} } };

async function call(client: RawClient, method: string, params: Record<string, unknown>) {
  return client.request(method, params);
}

async function settled(client: RawClient, taskId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const task = await call(client, 'tasks/get', { taskId });
    if (['completed', 'failed', 'cancelled'].includes(task.status as string)) return task;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`task ${taskId} did not finish`);
}

describe('tools as tasks, over 2026-07-28', () => {
  it('a store passed to createServer keeps the tasks: created before the answer, completed later', async () => {
    const store = new RecordingStore();
    const client = await connect(tasksServer(store), WITH_TASKS);
    const created = await call(client, 'tools/call', { name: 'export', arguments: { items: 3 } });
    expect(created).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: 60_000,
      pollIntervalMs: 50,
    });
    expect(created).not.toHaveProperty('requestState');
    const taskId = created.taskId as string;
    expect(Buffer.from(taskId, 'base64url')).toHaveLength(16);
    expect(store.tasks.has(taskId)).toBe(true);
    const done = await settled(client, taskId);
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'exported 3 items' }] } });
    expect(done).not.toHaveProperty('principal');
    expect(store.calls).toEqual(['create working', 'update completed']);
  });

  it('without the extension, an optional task tool runs as an ordinary call; a required one is -32021', async () => {
    const client = await connect(tasksServer(), { elicitation: {} });
    const result = await call(client, 'tools/call', { name: 'export', arguments: { items: 1 } });
    expect(result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'exported 1 items' }],
    });
    const failure = await call(client, 'tools/call', { name: 'confirm', arguments: {} }).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: -32021 });
    expect(JSON.stringify((failure as { data?: unknown }).data)).toContain(TASKS_EXTENSION_ID);
    const get = await call(client, 'tasks/get', { taskId: 'x' }).catch((error: unknown) => error);
    expect(get).toMatchObject({ code: -32021 });
  });

  it('a question parks the task as input_required; tasks/update answers it and the task completes', async () => {
    const client = await connect(tasksServer(), WITH_TASKS);
    const created = await call(client, 'tools/call', { name: 'confirm', arguments: {} });
    const taskId = created.taskId as string;
    const parked = await call(client, 'tasks/get', { taskId });
    expect(parked.status).toBe('input_required');
    const [key] = Object.keys(parked.inputRequests as object);
    expect(parked.inputRequests).toMatchObject({ [key as string]: { method: 'elicitation/create' } });
    const ack = await call(client, 'tasks/update', {
      taskId,
      inputResponses: { [key as string]: { action: 'accept', content: { ok: true } }, unknown: {} },
    });
    expect(ack).not.toHaveProperty('status');
    expect(await settled(client, taskId)).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'confirmed' }] },
    });
  });

  it('tasks/cancel settles a running task as cancelled, and acks a finished one; unknown ids are -32602', async () => {
    const client = await connect(tasksServer(), WITH_TASKS);
    const created = await call(client, 'tools/call', { name: 'confirm', arguments: {} });
    const taskId = created.taskId as string;
    await call(client, 'tasks/cancel', { taskId });
    expect(await settled(client, taskId)).toMatchObject({ status: 'cancelled' });
    await call(client, 'tasks/cancel', { taskId });
    const unknown = await call(client, 'tasks/get', { taskId: 'nope' }).catch((error: unknown) => error);
    expect(unknown).toMatchObject({ code: -32602 });
  });

  it('advertises the extension only when a tool runs as a task', async () => {
    const client = await connect(tasksServer(), WITH_TASKS);
    const discovered = await call(client, 'server/discover', {});
    expect(discovered).toHaveProperty(['capabilities', 'extensions', TASKS_EXTENSION_ID]);
    const plain = createServer(
      defineServer({
        name: 'plain',
        version: '1.0.0',
        tools: [defineTool({ name: 't', handler: () => 'x' })],
      }),
      quiet,
    );
    const other = await call(await connect(plain, WITH_TASKS), 'server/discover', {});
    expect(other).not.toHaveProperty(['capabilities', 'extensions', TASKS_EXTENSION_ID]);
  });
});

/** One store shared by two servers in this process, as replicas share Redis: it tells watchers of changes. */
class WatchedStore extends InMemoryTaskStore {
  readonly #listeners = new Set<(taskId: string | undefined) => void>();
  override async update(task: TaskRecord, expectedVersion: number) {
    const saved = await super.update(task, expectedVersion);
    if (saved !== undefined) for (const listener of this.#listeners) listener(task.taskId);
    return saved;
  }
  watch(listener: (taskId: string | undefined) => void) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** One of several servers sharing `store`: `wait` runs until aborted (10 s at most), `confirm` asks first. */
function replica(store: TaskStore, aborted: string[], leaseMs?: number): PierServer {
  return createServer(
    defineServer({
      name: 'tasks',
      version: '1.0.0',
      tools: [
        defineTool({
          name: 'wait',
          task: 'required',
          handler: async (_args, ctx) => {
            // Bounded: ends by itself after 10 s if nothing aborts it.
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, 10_000);
              ctx.signal.addEventListener('abort', () => {
                clearTimeout(timer);
                aborted.push('wait');
                resolve();
              });
            });
            return 'waited';
          },
        }),
        defineTool({
          name: 'confirm',
          task: 'required',
          handler: async (_args, ctx) => {
            const answer = await ctx.elicit({
              message: 'Sure?',
              requestedSchema: {
                type: 'object',
                properties: { ok: { type: 'boolean' } },
                required: ['ok'],
              },
            });
            return answer.content?.ok === true ? 'confirmed' : 'declined';
          },
        }),
      ],
    }),
    {
      ...quiet,
      tasks: { store, ttlMs: 60_000, pollIntervalMs: 50, ...(leaseMs !== undefined && { leaseMs }) },
    },
  );
}

describe('tasks on a store shared by two servers (watch)', () => {
  it('a cancel through the other server aborts the run, and an answer through it resumes the run', async () => {
    const store = new WatchedStore();
    const aborted: string[] = [];
    const a = await connect(replica(store, aborted), WITH_TASKS);
    const b = await connect(replica(store, []), WITH_TASKS);
    const waiting = await call(a, 'tools/call', { name: 'wait', arguments: {} });
    await call(b, 'tasks/cancel', { taskId: waiting.taskId });
    for (let i = 0; i < 100 && aborted.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(aborted).toEqual(['wait']);
    expect(await settled(a, waiting.taskId as string)).toMatchObject({ status: 'cancelled' });

    const asking = await call(a, 'tools/call', { name: 'confirm', arguments: {} });
    const taskId = asking.taskId as string;
    const parked = await call(b, 'tasks/get', { taskId });
    const [key] = Object.keys(parked.inputRequests as object);
    await call(b, 'tasks/update', {
      taskId,
      inputResponses: { [key as string]: { action: 'accept', content: { ok: true } } },
    });
    expect(await settled(b, taskId)).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'confirmed' }] },
    });
  });

  it('without watch, the same cancel leaves the run going until it ends by itself', async () => {
    const store = new InMemoryTaskStore();
    const aborted: string[] = [];
    const a = await connect(replica(store, aborted), WITH_TASKS);
    const b = await connect(replica(store, []), WITH_TASKS);
    const waiting = await call(a, 'tools/call', { name: 'wait', arguments: {} });
    await call(b, 'tasks/cancel', { taskId: waiting.taskId });
    await new Promise((r) => setTimeout(r, 300));
    expect(aborted).toEqual([]);
    expect(await call(a, 'tasks/get', { taskId: waiting.taskId })).toMatchObject({ status: 'cancelled' });
    // Through its own server the cancel reaches it (and nothing is left running).
    await call(a, 'tasks/cancel', { taskId: waiting.taskId });
    expect(aborted).toEqual(['wait']);
  });
});

/**
 * The in-memory store behind a switch: while `down`, every call rejects as an unreachable shared store
 * does (the outage is the only thing simulated here; @pier/redis and the example app test it with a
 * real redis-server). `back()` ends the outage and tells watchers to re-read, as a reconnect does.
 */
class FlakyStore implements TaskStore {
  readonly inner = new InMemoryTaskStore();
  down = false;
  readonly #listeners = new Set<(taskId: string | undefined) => void>();
  #check() {
    if (this.down) throw new Error('task store: not connected (waited 0 ms)');
  }
  async create(task: TaskRecord) {
    this.#check();
    return this.inner.create(task);
  }
  async get(taskId: string) {
    this.#check();
    return this.inner.get(taskId);
  }
  async update(task: TaskRecord, expectedVersion: number) {
    this.#check();
    return this.inner.update(task, expectedVersion);
  }
  async delete(taskId: string) {
    this.#check();
    return this.inner.delete(taskId);
  }
  watch(listener: (taskId: string | undefined) => void) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  back() {
    this.down = false;
    for (const listener of this.#listeners) listener(undefined);
  }
}

describe('a task store outage', () => {
  /** A task tool whose run ends when the test says; its progress is reported while the store is down. */
  function gatedServer(store: TaskStore) {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = createServer(
      defineServer({
        name: 'gated',
        version: '1.0.0',
        tools: [
          defineTool({
            name: 'export',
            task: 'required',
            handler: async (_args, ctx) => {
              await ctx.reportProgress(1, { total: 2, message: 'half way' });
              await gate;
              // The store is down now: a status message it cannot take never fails the run.
              await ctx.reportProgress(2, { total: 2, message: 'done' });
              return 'exported';
            },
          }),
        ],
      }),
      { ...quiet, tasks: { store, ttlMs: 60_000 } },
    );
    return { server, release: () => release() };
  }

  it('a run that ends during the outage is saved completed once the store is back, not left working', async () => {
    const store = new FlakyStore();
    const { server, release } = gatedServer(store);
    const client = await connect(server, WITH_TASKS);
    const created = await call(client, 'tools/call', { name: 'export', arguments: {} });
    const taskId = created.taskId as string;
    store.down = true;
    release();
    // The run ends and its final save fails; nothing is saved while the store is down.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await store.inner.get(taskId))?.status).toBe('working');
    store.back();
    expect(await settled(client, taskId)).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'exported' }] },
    });
    expect((await store.inner.get(taskId))?.statusMessage).toBeUndefined();
  });

  it('a running task is saved failed when the server closes (its run is gone with the process)', async () => {
    const store = new RecordingStore();
    const { server } = gatedServer(store);
    const client = await connect(server, WITH_TASKS);
    const created = await call(client, 'tools/call', { name: 'export', arguments: {} });
    await server.close();
    expect(store.tasks.get(created.taskId as string)).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'the server shut down before the task finished' },
    });
  });
});

describe('a task whose process died (leaseMs)', () => {
  /** What a process killed mid-run leaves in a shared store: an unfinished task nobody renews. */
  async function leftBehind(
    store: TaskStore,
    status: 'working' | 'input_required',
    leaseUntil: number | undefined,
  ): Promise<string> {
    const now = Date.now();
    const at = new Date(now - 5_000).toISOString();
    const task = await store.create({
      taskId: `left-${status}-${String(leaseUntil)}-${Math.random()}`,
      principal: '',
      status,
      createdAt: at,
      lastUpdatedAt: at,
      ttlMs: 60_000,
      expiresAt: now + 55_000,
      ...(leaseUntil !== undefined && { leaseUntil }),
      ...(status === 'input_required' && {
        inputRequests: { ok: { method: 'elicitation/create', params: { message: 'Sure?' } } as never },
        answers: {},
      }),
    });
    return task.taskId;
  }

  it('a task whose lease ran out reads as failed, for good; one still leased, or without a lease, as it was', async () => {
    const store = new InMemoryTaskStore();
    const client = await connect(replica(store, []), WITH_TASKS);
    const expired = await leftBehind(store, 'working', Date.now() - 1);
    const failed = await call(client, 'tasks/get', { taskId: expired });
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'the server process running the task stopped before it finished' },
    });
    // Saved so: every later read (through any server) agrees, and it is final.
    expect(await store.get(expired)).toMatchObject({ status: 'failed' });
    expect(await store.get(expired)).not.toHaveProperty('leaseUntil');
    expect(await call(client, 'tasks/get', { taskId: expired })).toEqual(failed);

    // A parked task too: an answer or a cancel through another server finds it failed, not waiting forever.
    const parked = await leftBehind(store, 'input_required', Date.now() - 1);
    await call(client, 'tasks/cancel', { taskId: parked });
    expect(await call(client, 'tasks/get', { taskId: parked })).toMatchObject({ status: 'failed' });

    // Negative controls: a lease still running, and a task saved without one, are left as they are.
    const leased = await leftBehind(store, 'working', Date.now() + 60_000);
    const unleased = await leftBehind(store, 'working', undefined);
    expect(await call(client, 'tasks/get', { taskId: leased })).toMatchObject({ status: 'working' });
    expect(await call(client, 'tasks/get', { taskId: unleased })).toMatchObject({ status: 'working' });
  });

  it('the server running a task renews its lease: another server reads it working long past leaseMs, its lastUpdatedAt untouched', async () => {
    const store = new WatchedStore();
    const aborted: string[] = [];
    const a = await connect(replica(store, aborted, 600), WITH_TASKS);
    const b = await connect(replica(store, [], 600), WITH_TASKS);
    const created = await call(a, 'tools/call', { name: 'wait', arguments: {} });
    const taskId = created.taskId as string;
    const first = await store.get(taskId);
    // Over three leases long: without the renewals, the read below would fail the task (first test).
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const later = await store.get(taskId);
    expect(later?.leaseUntil).toBeGreaterThan(first?.leaseUntil as number);
    expect(await call(b, 'tasks/get', { taskId })).toMatchObject({
      status: 'working',
      lastUpdatedAt: created.lastUpdatedAt,
    });
    expect(aborted).toEqual([]);
    await call(b, 'tasks/cancel', { taskId });
    for (let i = 0; i < 100 && aborted.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(aborted).toEqual(['wait']);
  });

  it('leaseMs: 0 saves no lease', async () => {
    const store = new InMemoryTaskStore();
    const a = await connect(replica(store, [], 0), WITH_TASKS);
    const created = await call(a, 'tools/call', { name: 'wait', arguments: {} });
    expect(await store.get(created.taskId as string)).not.toHaveProperty('leaseUntil');
    await call(a, 'tasks/cancel', { taskId: created.taskId });
  });
});

describe('InMemoryTaskStore', () => {
  const record = (taskId: string, status: TaskRecord['status'], expiresAt: number): TaskRecord => ({
    taskId,
    principal: '',
    status,
    createdAt: '2026-01-01T00:00:00.000Z',
    lastUpdatedAt: '2026-01-01T00:00:00.000Z',
    ttlMs: 1000,
    expiresAt,
  });

  it('returns a task until its TTL, then nothing', async () => {
    let now = 0;
    const store = new InMemoryTaskStore({ now: () => now });
    await store.create(record('a', 'completed', 1000));
    now = 999;
    expect(await store.get('a')).toMatchObject({ taskId: 'a', version: 1 });
    now = 1000;
    expect(await store.get('a')).toBeUndefined();
  });

  it('updates only from the version it was given (compare-and-set)', async () => {
    const store = new InMemoryTaskStore();
    await store.create(record('a', 'working', Number.MAX_SAFE_INTEGER));
    expect(await store.update(record('a', 'completed', Number.MAX_SAFE_INTEGER), 1)).toMatchObject({
      version: 2,
    });
    expect(await store.update(record('a', 'failed', Number.MAX_SAFE_INTEGER), 1)).toBeUndefined();
    expect((await store.get('a'))?.status).toBe('completed');
    // Concurrent updates of one version: exactly one is applied.
    const outcomes = await Promise.all(
      (['failed', 'cancelled'] as const).map((status) =>
        store.update(record('a', status, Number.MAX_SAFE_INTEGER), 2),
      ),
    );
    expect(outcomes.filter((outcome) => outcome !== undefined)).toHaveLength(1);
  });

  it('when full, drops the oldest finished task; refuses a new one when only unfinished tasks are left', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 2 });
    const forever = Number.MAX_SAFE_INTEGER;
    await store.create(record('done', 'completed', forever));
    await store.create(record('busy', 'working', forever));
    await store.create(record('new', 'working', forever));
    expect(await store.get('done')).toBeUndefined();
    await expect(store.create(record('more', 'working', forever))).rejects.toThrow(/full/);
    expect(store.size.tasks).toBe(2);
  });
});
