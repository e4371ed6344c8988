// Core's KeyValueStore kept in Redis, so that every replica sees the same short-lived state (the OAuth
// proxy's registrations, pending logins, one-time codes, grants). One Redis string per key, expiring with
// its TTL (PX); `add` is SET NX, and `take` reads and deletes in one Lua script, so of two replicas
// redeeming one code, exactly one gets it.
import type { KeyValueStore } from '@pier/core';
import { describeValue } from '@pier/core';
import { type RedisConnectionLike, storeClient, untilReady } from './client.js';
import { messageOf, PierRedisError } from './errors.js';
import { RedisOptionChecks } from './option-checks.js';

/**
 * What the store calls on a Redis client. `createClient()` of `@redis/client` v6 satisfies it; another
 * client needs a small adapter (`eval` with `{ keys, arguments }`).
 */
export interface RedisKeyValueClientLike extends RedisConnectionLike {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Options of {@link redisKeyValueStore}. Give `url` or `client`. */
export interface RedisKeyValueStoreOptions {
  /** `redis://[user:password@]host:port[/db]`: the store makes (and closes) its own client. */
  readonly url?: string;
  /** A node-redis v6 client (or an adapter), connected or not. The store never closes it. */
  readonly client?: RedisKeyValueClientLike;
  /**
   * Prefix of every key (`<prefix><key>`). Replicas of one server share it; different servers on one Redis
   * need different prefixes. Default `pier:kv:`.
   */
  readonly prefix?: string;
  /**
   * How long a command waits for the connection to Redis (at start, or after it was lost) before it fails
   * with `REDIS_KV_STORE_FAILED`, in ms. Default 2,000.
   */
  readonly connectTimeoutMs?: number;
}

/** The store: core's `KeyValueStore` with readiness and `close`. */
export interface RedisKeyValueStore extends KeyValueStore {
  /** Resolves once commands can run (or the connect timeout passed). Never rejects. */
  readonly ready: Promise<void>;
  /** Closes the client the store made (a given client is left open). Idempotent. */
  close(): Promise<void>;
}

// KEYS[1]. The value, or nil.
const GET = `return redis.call('GET', KEYS[1])`;
// KEYS[1]; ARGV: value, ttl in ms.
const SET = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1`;
// KEYS[1]; ARGV: value, ttl in ms. 1 when written, 0 when the key held a value.
const ADD = `if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 end return 0`;
// KEYS[1]. The value, deleted in the same step (GETDEL, written so that Redis before 6.2 runs it too).
const TAKE = `local v = redis.call('GET', KEYS[1]) if v then redis.call('DEL', KEYS[1]) end return v`;
// KEYS[1].
const DELETE = `redis.call('DEL', KEYS[1]) return 1`;

/**
 * Makes the Redis key-value store. Pass the same options to every replica, and the store to whatever
 * takes a `KeyValueStore` (such as `oauthProxy({ store })` of `@pier/oauth-proxy`):
 *
 * @example
 * ```ts
 * const store = redisKeyValueStore({ url: process.env.REDIS_URL, prefix: 'notes:oauth:' });
 * server.onClose(() => store.close());
 * ```
 */
export function redisKeyValueStore(options: RedisKeyValueStoreOptions): RedisKeyValueStore {
  return new StringKeyValueStore(resolveOptions(options));
}

type Resolved = Required<Pick<RedisKeyValueStoreOptions, 'prefix' | 'connectTimeoutMs'>> &
  Pick<RedisKeyValueStoreOptions, 'url' | 'client'>;

class StringKeyValueStore implements RedisKeyValueStore {
  readonly ready: Promise<void>;
  readonly #options: Resolved;
  readonly #client: Promise<RedisKeyValueClientLike>;
  #ownsClient = false;
  #closed = false;

  constructor(options: Resolved) {
    this.#options = options;
    this.#client = this.#open();
    // A failed start is reported by every command; `ready` only says when to start serving.
    this.#client.catch(() => undefined);
    this.ready = this.#client.then(
      async (client) => {
        for (let waited = 0; !client.isReady && !this.#closed; waited += 25) {
          if (waited >= options.connectTimeoutMs) return;
          await sleep(25);
        }
      },
      () => undefined,
    );
  }

  async get(key: string): Promise<string | undefined> {
    return stringReply(await this.#run('get', GET, key, []));
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.#run('set', SET, key, [checkValue(value), ttlOf(ttlMs)]);
  }

  async add(key: string, value: string, ttlMs: number): Promise<boolean> {
    return Number(await this.#run('add', ADD, key, [checkValue(value), ttlOf(ttlMs)])) === 1;
  }

  async take(key: string): Promise<string | undefined> {
    return stringReply(await this.#run('take', TAKE, key, []));
  }

  async delete(key: string): Promise<void> {
    await this.#run('delete', DELETE, key, []);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const client = await this.#client.catch(() => undefined);
    if (this.#ownsClient && client?.isOpen) await client.close().catch(() => client.destroy());
  }

  async #open(): Promise<RedisKeyValueClientLike> {
    const { client, owned } = await storeClient<RedisKeyValueClientLike>(this.#options);
    this.#ownsClient = owned;
    return client;
  }

  async #run(what: string, script: string, key: string, args: string[]): Promise<unknown> {
    if (typeof key !== 'string' || key === '') {
      throw new PierRedisError(
        'REDIS_KV_STORE_FAILED',
        `key-value store: a key must be a non-empty string (got ${describeValue(key)})`,
      );
    }
    if (this.#closed)
      throw new PierRedisError('REDIS_KV_STORE_FAILED', `key-value store: ${what} after close()`);
    const client = await this.#client;
    const { connectTimeoutMs } = this.#options;
    if (!(await untilReady(client, connectTimeoutMs, () => this.#closed))) {
      throw new PierRedisError(
        'REDIS_KV_STORE_FAILED',
        `key-value store: ${what} failed: not connected to Redis (waited ${connectTimeoutMs} ms)`,
      );
    }
    try {
      return await client.eval(script, { keys: [`${this.#options.prefix}${key}`], arguments: args });
    } catch (error) {
      // The message names the operation, never the key or the value (either may be derived from a secret).
      throw new PierRedisError(
        'REDIS_KV_STORE_FAILED',
        `key-value store: ${what} failed: ${messageOf(error)}`,
        {
          cause: error,
        },
      );
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function stringReply(reply: unknown): string | undefined {
  if (reply === null || reply === undefined) return undefined;
  return typeof reply === 'string' ? reply : String(reply);
}

function checkValue(value: unknown): string {
  if (typeof value !== 'string') {
    throw new PierRedisError(
      'REDIS_KV_STORE_FAILED',
      `key-value store: a value must be a string (got a ${typeof value})`,
    );
  }
  return value;
}

/** The TTL in whole milliseconds, at least 1 (Redis refuses PX 0). */
function ttlOf(ttlMs: unknown): string {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new PierRedisError(
      'REDIS_KV_STORE_FAILED',
      `key-value store: ttlMs must be a positive number of milliseconds (got ${describeValue(ttlMs)})`,
    );
  }
  return `${Math.max(1, Math.ceil(ttlMs))}`;
}

function resolveOptions(options: RedisKeyValueStoreOptions): Resolved {
  const checks = new RedisOptionChecks('redisKeyValueStore', options, ['connect', 'eval', 'on']);
  const { url, client } = options;
  const resolved: Resolved = {
    prefix: checks.text('prefix', options.prefix, 'pier:kv:'),
    connectTimeoutMs: checks.int('connectTimeoutMs', options.connectTimeoutMs, 2_000, 0),
    ...(url !== undefined && { url }),
    ...(client !== undefined && { client }),
  };
  checks.done();
  return resolved;
}
