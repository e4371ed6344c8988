// Where tasks (the `io.modelcontextprotocol/tasks` extension) live between requests: a small interface a
// replicated store implements (`@pier/redis`), and the embedded in-memory default, bounded in count and
// bytes, each task kept until its TTL.
import type { InputRequest } from '@modelcontextprotocol/server';
import { utf8Length } from '../engine/runtime.js';
import { PierError } from '../errors.js';

/** A task's status; `completed`, `failed` and `cancelled` are final. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A JSON-RPC error, as a failed task carries it. */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * One task as Pier stores it. JSON only (a store may serialize it); `principal`, `expiresAt`,
 * `leaseUntil` and `answers` never reach a client.
 */
export interface TaskRecord {
  /** Unguessable (128 random bits, base64url). */
  readonly taskId: string;
  /** Who created it (`principalOf(authInfo)`, else `authInfo.clientId`, else `''`): only they can see it. */
  readonly principal: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** ISO 8601. */
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  /** How long the task is kept after it was created, in whole milliseconds. */
  readonly ttlMs: number;
  readonly pollIntervalMs?: number;
  /** `createdAt + ttlMs`, in milliseconds since the epoch: a store must not return the task after it. */
  readonly expiresAt: number;
  /**
   * While the task is unfinished: until when (ms since the epoch) the process running it vouches for it.
   * That process renews it every third of `tasks.leaseMs`; once it has passed, the process is presumed
   * gone (killed, crashed) and whichever process reads the task next saves it `failed`. Absent: no lease
   * (`leaseMs: 0`, or a task saved by an older Pier), and the task stays unfinished until its TTL.
   */
  readonly leaseUntil?: number;
  /** Questions waiting for `tasks/update`, by key (status `input_required`). */
  readonly inputRequests?: Readonly<Record<string, InputRequest>>;
  /** Answers gathered so far, by key: what the handler finds when it runs again. */
  readonly answers?: Readonly<Record<string, unknown>>;
  /** The tool's result (status `completed`). */
  readonly result?: Readonly<Record<string, unknown>>;
  /** The JSON-RPC error (status `failed`). */
  readonly error?: TaskError;
}

/** A task as a store returns it, with the version its next update must name. */
export interface StoredTask extends TaskRecord {
  readonly version: number;
}

/**
 * Keeps tasks for `createServer(…, { tasks: { store } })`. Every method may be called from any replica;
 * a store shared by replicas must be strongly consistent for one task id (a `get` right after `create`
 * resolves the task). Pier checks the caller's principal itself.
 */
export interface TaskStore {
  /** Stores a new task (version 1). Rejects when it cannot (full, unreachable): no task is returned then. */
  create(task: TaskRecord): Promise<StoredTask>;
  /** The task, or `undefined` when unknown or past its `expiresAt`. */
  get(taskId: string): Promise<StoredTask | undefined>;
  /**
   * Replaces the task if its version is still `expectedVersion` (compare-and-set), resolving with the new
   * version; `undefined` when the version moved on or the task is gone.
   */
  update(task: TaskRecord, expectedVersion: number): Promise<StoredTask | undefined>;
  delete(taskId: string): Promise<void>;
  /**
   * Optional, for a store shared by several processes: calls `listener` with a task's id after the task
   * changed or was deleted (through any process, this one included), and with `undefined` when changes may
   * have been missed (a reconnect). Pier re-reads the tasks whose run this process owns: a task cancelled
   * or deleted elsewhere has its run aborted (`ctx.signal`), one answered elsewhere (`tasks/update`) runs
   * its handler again here. Without it, those runs only learn of the change when they finish. Returns the
   * function that stops the calls.
   */
  watch?(listener: (taskId: string | undefined) => void): () => void;
}

/** Options of {@link InMemoryTaskStore}. */
export interface InMemoryTaskStoreOptions {
  /** Most tasks held at once. Default 10 000. */
  readonly maxTasks?: number;
  /** Most bytes held at once (tasks measured as JSON). Default 64 MiB. */
  readonly maxBytes?: number;
  /** The clock, for tests. */
  readonly now?: () => number;
}

/**
 * The default store: one process's memory. Expired tasks are dropped when met and on every create; when
 * full, the oldest finished tasks make room before their TTL, and if only unfinished ones are left a new
 * task is refused (`create` rejects).
 */
export class InMemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, { task: StoredTask; bytes: number }>();
  readonly #maxTasks: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  #bytes = 0;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.#maxTasks = options.maxTasks ?? 10_000;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#now = options.now ?? Date.now;
  }

  /** Tasks and bytes held now (expired ones included until they are met). */
  get size(): { readonly tasks: number; readonly bytes: number } {
    return { tasks: this.#tasks.size, bytes: this.#bytes };
  }

  async create(task: TaskRecord): Promise<StoredTask> {
    if (this.#tasks.has(task.taskId)) throw new PierError('OPTIONS_INVALID', 'task store: the task exists');
    this.#sweep();
    return this.#put({ ...task, version: 1 }, 0);
  }

  async get(taskId: string): Promise<StoredTask | undefined> {
    return this.#current(taskId);
  }

  async update(task: TaskRecord, expectedVersion: number): Promise<StoredTask | undefined> {
    // Read and write in one synchronous step: an `await` between them let concurrent updates of one
    // version all succeed.
    const current = this.#current(task.taskId);
    if (current === undefined || current.version !== expectedVersion) return undefined;
    return this.#put({ ...task, version: expectedVersion + 1 }, this.#tasks.get(task.taskId)?.bytes ?? 0);
  }

  async delete(taskId: string): Promise<void> {
    this.#remove(taskId);
  }

  #current(taskId: string): StoredTask | undefined {
    const held = this.#tasks.get(taskId);
    if (held === undefined) return undefined;
    if (held.task.expiresAt <= this.#now()) {
      this.#remove(taskId);
      return undefined;
    }
    return held.task;
  }

  #put(task: StoredTask, replacing: number): StoredTask {
    const bytes = utf8Length(JSON.stringify(task));
    const isNew = replacing === 0;
    this.#makeRoom(bytes - replacing, isNew ? 1 : 0, task.taskId);
    this.#bytes += bytes - replacing;
    this.#tasks.set(task.taskId, { task, bytes });
    return task;
  }

  /** Evicts finished tasks, oldest first, until `bytes` and `count` more fit; throws when they cannot. */
  #makeRoom(bytes: number, count: number, keep: string): void {
    const fits = () => this.#tasks.size + count <= this.#maxTasks && this.#bytes + bytes <= this.#maxBytes;
    if (fits()) return;
    for (const [taskId, { task }] of this.#tasks) {
      if (taskId === keep || !isFinal(task.status)) continue;
      this.#remove(taskId);
      if (fits()) return;
    }
    throw new PierError(
      'OPTIONS_INVALID',
      `task store full (${this.#tasks.size} tasks, ${this.#bytes} bytes; at most ${this.#maxTasks} and ${this.#maxBytes})`,
    );
  }

  #sweep(): void {
    const now = this.#now();
    for (const [taskId, { task }] of this.#tasks) if (task.expiresAt <= now) this.#remove(taskId);
  }

  #remove(taskId: string): void {
    const held = this.#tasks.get(taskId);
    if (held === undefined) return;
    this.#tasks.delete(taskId);
    this.#bytes -= held.bytes;
  }
}

/** Whether a task with this status is finished. */
export function isFinal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
