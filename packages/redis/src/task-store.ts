// Tasks (the `io.modelcontextprotocol/tasks` extension) kept in Redis, so that a task created through one
// replica is polled, answered and cancelled through any other. One hash per task, written by Lua scripts
// (atomic compare-and-set, expiry at the task's own `expiresAt`), and one pub/sub channel telling every
// replica which task changed: the replica running a task's handler learns of a cancel made elsewhere.
import type { StoredTask, TaskRecord, TaskStore } from '@pier/core';
import { describeValue } from '@pier/core';
import { type RedisConnectionLike, storeClient, untilReady } from './client.js';
import { messageOf, PierRedisError } from './errors.js';
import { RedisOptionChecks } from './option-checks.js';

/**
 * What the task store calls on a Redis client. `createClient()` of `@redis/client` v6 satisfies it; another
 * client needs a small adapter (`eval` with `{ keys, arguments }`, `subscribe` with a message listener).
 */
export interface RedisTaskClientLike extends RedisConnectionLike {
  /** A new client with the same options, not connected yet: the store subscribes on it. */
  duplicate(overrides?: Record<string, unknown>): RedisTaskClientLike;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
}

/** Options of {@link redisTaskStore}. Give `url` or `client`. */
export interface RedisTaskStoreOptions {
  /** `redis://[user:password@]host:port[/db]`: the store makes (and closes) its own clients. */
  readonly url?: string;
  /**
   * A node-redis v6 client (or an adapter), connected or not: it runs the commands; the store subscribes
   * on its own `client.duplicate()`. The store never closes it.
   */
  readonly client?: RedisTaskClientLike;
  /**
   * Prefix of the task keys (`<prefix><taskId>`) and of the change channel (`<prefix>changed`). Replicas of
   * one server share it; different servers on one Redis need different prefixes. Default `pier:task:`.
   */
  readonly prefix?: string;
  /**
   * How long a command waits for the connection to Redis (at start, or after it was lost) before it fails
   * with `REDIS_TASK_STORE_FAILED`, in ms. Default 2,000.
   */
  readonly connectTimeoutMs?: number;
  /** Errors the store cannot throw (the change channel lost or unreadable); each is a {@link PierRedisError}. */
  readonly onerror?: (error: PierRedisError) => void;
}

/** The store: core's `TaskStore` with `watch`, readiness and `close`. */
export interface RedisTaskStore extends TaskStore {
  /** Resolves once commands can run and the change channel is subscribed. Never rejects. */
  readonly ready: Promise<void>;
  /** Calls `listener` with the id of every task changed or deleted through any replica; `undefined` after a reconnect. */
  watch(listener: (taskId: string | undefined) => void): () => void;
  /** Stops listening and closes the clients the store made. Idempotent. */
  close(): Promise<void>;
}

// KEYS[1] task key. ARGV: record JSON, expiresAt (ms since the epoch). 1 when created, 0 when it exists.
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', '1', 't', ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 1`;

// KEYS[1] task key. ARGV: expected version, record JSON, expiresAt, channel, taskId. The new version, or 0
// when the task is gone or another writer moved it on.
const UPDATE = `
local current = redis.call('HGET', KEYS[1], 'v')
if current == false or current ~= ARGV[1] then return 0 end
local next = tonumber(current) + 1
redis.call('HSET', KEYS[1], 'v', tostring(next), 't', ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return next`;

// KEYS[1] task key. ARGV: channel, taskId.
const DELETE = `
if redis.call('DEL', KEYS[1]) == 1 then redis.call('PUBLISH', ARGV[1], ARGV[2]) end
return 0`;

// KEYS[1] task key. { version, record JSON } or nil.
const GET = `return redis.call('HMGET', KEYS[1], 'v', 't')`;

/**
 * Makes the Redis task store. Pass the same options to every replica and the store to `createServer`:
 *
 * @example
 * ```ts
 * const tasks = redisTaskStore({ url: process.env.REDIS_URL });
 * const server = createServer(MyServer, { tasks: { store: tasks } });
 * server.onClose(() => tasks.close());
 * await tasks.ready;
 * ```
 */
export function redisTaskStore(options: RedisTaskStoreOptions): RedisTaskStore {
  return new HashTaskStore(resolveOptions(options));
}

type Resolved = Required<Pick<RedisTaskStoreOptions, 'prefix' | 'connectTimeoutMs'>> &
  Pick<RedisTaskStoreOptions, 'url' | 'client' | 'onerror'>;

class HashTaskStore implements RedisTaskStore {
  readonly ready: Promise<void>;
  readonly #options: Resolved;
  readonly #channel: string;
  readonly #listeners = new Set<(taskId: string | undefined) => void>();
  readonly #client: Promise<RedisTaskClientLike>;
  #subscriber: RedisTaskClientLike | undefined;
  #ownsClient = false;
  #closed = false;

  constructor(options: Resolved) {
    this.#options = options;
    this.#channel = `${options.prefix}changed`;
    this.#client = this.#open();
    // A failed start is reported by every command; `ready` only says when to start serving.
    this.#client.catch(() => undefined);
    this.ready = this.#client.then(
      async (client) => {
        while (!client.isReady && !this.#closed) await sleep(25);
        await this.#subscribe(client);
      },
      () => undefined,
    );
  }

  async create(task: TaskRecord): Promise<StoredTask> {
    const { version: _, ...fields } = task as StoredTask;
    const record = serialize(fields);
    const created = await this.#run('create', CREATE, [this.#key(task.taskId)], [record, expiry(task)]);
    if (Number(created) !== 1) {
      throw new PierRedisError('REDIS_TASK_STORE_FAILED', `task store: task ${task.taskId} exists already`);
    }
    return { ...task, version: 1 };
  }

  async get(taskId: string): Promise<StoredTask | undefined> {
    if (typeof taskId !== 'string' || taskId === '') return undefined;
    const reply = await this.#run('get', GET, [this.#key(taskId)], []);
    const [version, record] = Array.isArray(reply) ? reply : [];
    if (version === null || version === undefined || record === null || record === undefined)
      return undefined;
    let task: TaskRecord;
    try {
      task = JSON.parse(String(record)) as TaskRecord;
    } catch (error) {
      throw new PierRedisError(
        'REDIS_TASK_STORE_FAILED',
        `task store: task ${taskId} is not valid JSON in Redis (${messageOf(error)})`,
      );
    }
    // Redis expires the key at `expiresAt` too; this covers the moment in between.
    if (task.expiresAt <= Date.now()) return undefined;
    return { ...task, version: Number(version) };
  }

  async update(task: TaskRecord, expectedVersion: number): Promise<StoredTask | undefined> {
    const { version: _, ...record } = task as StoredTask;
    const next = Number(
      await this.#run(
        'update',
        UPDATE,
        [this.#key(task.taskId)],
        [`${expectedVersion}`, serialize(record), expiry(task), this.#channel, task.taskId],
      ),
    );
    return next > 0 ? { ...record, version: next } : undefined;
  }

  async delete(taskId: string): Promise<void> {
    await this.#run('delete', DELETE, [this.#key(taskId)], [this.#channel, taskId]);
  }

  watch(listener: (taskId: string | undefined) => void): () => void {
    const own = (taskId: string | undefined) => listener(taskId);
    this.#listeners.add(own);
    return () => {
      this.#listeners.delete(own);
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    try {
      this.#subscriber?.destroy();
    } catch {}
    const client = await this.#client.catch(() => undefined);
    if (this.#ownsClient && client?.isOpen) await client.close().catch(() => client.destroy());
  }

  #key(taskId: string): string {
    return `${this.#options.prefix}${taskId}`;
  }

  async #open(): Promise<RedisTaskClientLike> {
    const { client, owned } = await storeClient<RedisTaskClientLike>(this.#options);
    this.#ownsClient = owned;
    return client;
  }

  async #run(what: string, script: string, keys: string[], args: string[]): Promise<unknown> {
    if (this.#closed)
      throw new PierRedisError('REDIS_TASK_STORE_FAILED', `task store: ${what} after close()`);
    const client = await this.#client;
    const { connectTimeoutMs } = this.#options;
    if (!(await untilReady(client, connectTimeoutMs, () => this.#closed))) {
      throw new PierRedisError(
        'REDIS_TASK_STORE_FAILED',
        `task store: ${what} failed: not connected to Redis (waited ${connectTimeoutMs} ms)`,
      );
    }
    try {
      return await client.eval(script, { keys, arguments: args });
    } catch (error) {
      throw new PierRedisError('REDIS_TASK_STORE_FAILED', `task store: ${what} failed: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }

  /** Subscribes to the change channel on a connection of its own; after a reconnect, tells listeners to re-read. */
  async #subscribe(client: RedisTaskClientLike): Promise<void> {
    if (this.#closed) return;
    const subscriber = client.duplicate();
    this.#subscriber = subscriber;
    let readies = 0;
    let reported = false;
    subscriber.on('error', (error) => {
      if (reported || readies === 0 || this.#closed) return;
      reported = true;
      this.#report(
        new PierRedisError(
          'REDIS_TASK_STORE_FAILED',
          `task store: change channel lost (${messageOf(error)}); reconnecting`,
          { cause: error },
        ),
      );
    });
    // node-redis subscribes again by itself after a reconnect, but what was published meanwhile is lost:
    // watchers are told to re-read every task they care about.
    subscriber.on('ready', () => {
      readies++;
      reported = false;
      if (readies > 1) this.#notify(undefined);
    });
    try {
      await subscriber.connect();
      await subscriber.subscribe(this.#channel, (taskId) => this.#notify(taskId));
    } catch (error) {
      if (this.#closed) return;
      this.#report(
        new PierRedisError(
          'REDIS_TASK_STORE_FAILED',
          `task store: cannot subscribe to task changes: ${messageOf(error)}`,
          { cause: error },
        ),
      );
    }
  }

  #notify(taskId: string | undefined): void {
    for (const listener of this.#listeners) {
      try {
        listener(taskId);
      } catch (error) {
        this.#report(
          new PierRedisError('REDIS_TASK_STORE_FAILED', `task store: a watcher failed: ${messageOf(error)}`),
        );
      }
    }
  }

  #report(error: PierRedisError): void {
    try {
      this.#options.onerror?.(error);
    } catch {}
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** When Redis drops the key: the task's own `expiresAt`, in whole milliseconds. */
function expiry(task: TaskRecord): string {
  return `${Math.ceil(task.expiresAt)}`;
}

/** The record as stored: JSON, without the version (kept beside it). */
function serialize(task: TaskRecord): string {
  if (typeof task?.taskId !== 'string' || task.taskId === '' || !Number.isFinite(task.expiresAt)) {
    throw new PierRedisError(
      'REDIS_TASK_STORE_FAILED',
      `task store: a task needs a taskId and a finite expiresAt (got ${describeValue(task)})`,
    );
  }
  try {
    return JSON.stringify(task);
  } catch (error) {
    throw new PierRedisError(
      'REDIS_TASK_STORE_FAILED',
      `task store: task ${task.taskId} is not serializable as JSON: ${messageOf(error)}`,
    );
  }
}

function resolveOptions(options: RedisTaskStoreOptions): Resolved {
  const checks = new RedisOptionChecks('redisTaskStore', options, [
    'duplicate',
    'connect',
    'eval',
    'subscribe',
    'on',
  ]);
  const { url, client, onerror } = options;
  checks.callback('onerror', onerror);
  const resolved: Resolved = {
    prefix: checks.text('prefix', options.prefix, 'pier:task:'),
    connectTimeoutMs: checks.int('connectTimeoutMs', options.connectTimeoutMs, 2_000, 0),
    ...(url !== undefined && { url }),
    ...(client !== undefined && { client }),
    ...(onerror !== undefined && { onerror }),
  };
  checks.done();
  return resolved;
}
