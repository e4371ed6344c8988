// The input-required signing keys of a fleet, kept in Redis so that the replicas rotate them together:
// core's `RequestStateKeys` (`createServer(…, { requestState: { keys } })`). `<key>` holds the current key,
// `<key>:previous` the one before it (for the states' TTL), `<key>:copy` a copy of the current one that
// survives its deletion. A missing current key (deleted to rotate it, or lost with Redis's data) is created
// by the first replica that reads it, in one Lua script with the copy becoming the previous key: two
// replicas can never create two keys and split the fleet, and rounds begun before still complete.
import { randomBytes } from 'node:crypto';
import type { RequestStateKeySet, RequestStateKeys } from '@pier/core';
import { createRedisClient, untilReady } from './client.js';
import { messageOf, PierRedisError } from './errors.js';
import { RedisOptionChecks } from './option-checks.js';
import type { RedisTaskClientLike } from './task-store.js';

/** What the key source calls on a Redis client (the task store's, less pub/sub); node-redis v6 fits. */
export type RedisKeysClientLike = Pick<
  RedisTaskClientLike,
  'isReady' | 'isOpen' | 'connect' | 'close' | 'destroy' | 'on' | 'eval'
>;

/** Options of {@link redisRequestStateKeys}. Give `url` or `client`. */
export interface RedisRequestStateKeysOptions {
  /** `redis://[user:password@]host:port[/db]`: the source makes (and closes) its own client. */
  readonly url?: string;
  /** A node-redis v6 client (or an adapter), connected or not; never closed by the source. */
  readonly client?: RedisKeysClientLike;
  /**
   * Where the current key lives; beside it `<key>:previous` and `<key>:copy`. Default
   * `pier:request-state-key`.
   */
  readonly key?: string;
  /**
   * The states' TTL (`requestState.ttlSeconds` of the server): the previous key is kept this long after a
   * rotation, plus a minute (a replica may sign with it for a few seconds before it notices). Default 600.
   */
  readonly ttlSeconds?: number;
  /** How long `read()` waits for the connection to Redis before it fails, in ms. Default 2,000. */
  readonly connectTimeoutMs?: number;
}

/** The source: core's `RequestStateKeys`, plus `rotate()` and `close()`. */
export interface RedisRequestStateKeys extends RequestStateKeys {
  /**
   * Makes a new current key and keeps the old one as the previous (for the TTL): every replica signs with
   * the new key within 5 s, and rounds begun before still complete. Deleting `<key>` in Redis does the same.
   */
  rotate(): Promise<void>;
  /** Closes the client the source made (not one it was given). Idempotent. */
  close(): Promise<void>;
}

/** Margin the previous key is kept beyond the TTL: replicas read the keys at most 5 s apart. */
const PREVIOUS_MARGIN_SECONDS = 60;

// KEYS: current, previous, copy. ARGV: a fresh key, the previous key's TTL in seconds. Replies
// { current, previous or false }.
const READ = `
local current = redis.call('GET', KEYS[1])
if not current then
  current = ARGV[1]
  local last = redis.call('GET', KEYS[3])
  redis.call('SET', KEYS[1], current)
  if last and last ~= current then redis.call('SET', KEYS[2], last, 'EX', ARGV[2]) end
end
if redis.call('GET', KEYS[3]) ~= current then redis.call('SET', KEYS[3], current) end
return { current, redis.call('GET', KEYS[2]) }`;

// KEYS: current, previous, copy. ARGV: the new key, the previous key's TTL in seconds.
const ROTATE = `
local current = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[3], ARGV[1])
if current then redis.call('SET', KEYS[2], current, 'EX', ARGV[2]) end
return 1`;

/**
 * The request-state keys of a fleet, in Redis. Give every replica the same options:
 *
 * @example
 * ```ts
 * const keys = redisRequestStateKeys({ url: process.env.REDIS_URL });
 * const server = createServer(NotesServer, { requestState: { keys } });
 * server.onClose(() => keys.close());
 * ```
 */
export function redisRequestStateKeys(options: RedisRequestStateKeysOptions): RedisRequestStateKeys {
  const settings = resolve(options);
  const names = [settings.key, `${settings.key}:previous`, `${settings.key}:copy`];
  const keepSeconds = String(settings.ttlSeconds + PREVIOUS_MARGIN_SECONDS);
  let ownsClient = false;
  let closed = false;
  const opened = (async (): Promise<RedisKeysClientLike> => {
    let client: RedisKeysClientLike;
    if (settings.client !== undefined) {
      client = settings.client;
    } else {
      client = (await createRedisClient(settings.url as string)) as unknown as RedisKeysClientLike;
      ownsClient = true;
      // Reported by the read that fails; without a listener node-redis would crash the process.
      client.on('error', () => {});
    }
    if (!client.isOpen) client.connect().catch(() => undefined);
    return client;
  })();
  opened.catch(() => undefined);

  const run = async (what: string, script: string, args: string[]): Promise<unknown> => {
    if (closed) throw new PierRedisError('REDIS_KEYS_FAILED', `request-state keys: ${what} after close()`);
    const client = await opened;
    if (!(await untilReady(client, settings.connectTimeoutMs, () => closed))) {
      throw new PierRedisError(
        'REDIS_KEYS_FAILED',
        `request-state keys: ${what} failed: not connected to Redis (waited ${settings.connectTimeoutMs} ms)`,
      );
    }
    try {
      return await client.eval(script, { keys: names, arguments: args });
    } catch (error) {
      throw new PierRedisError(
        'REDIS_KEYS_FAILED',
        `request-state keys: ${what} failed: ${messageOf(error)}`,
        {
          cause: error,
        },
      );
    }
  };

  return {
    async read(): Promise<RequestStateKeySet> {
      const reply = await run('read', READ, [freshKey(), keepSeconds]);
      const [current, previous] = Array.isArray(reply) ? reply : [];
      if (typeof current !== 'string') {
        throw new PierRedisError('REDIS_KEYS_FAILED', `request-state keys: ${settings.key} is not a string`);
      }
      return typeof previous === 'string' ? { current, previous } : { current };
    },
    async rotate(): Promise<void> {
      await run('rotate', ROTATE, [freshKey(), keepSeconds]);
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const client = await opened.catch(() => undefined);
      if (ownsClient && client?.isOpen) await client.close().catch(() => client.destroy());
    },
  };
}

/** 32 random bytes as base64 (44 characters, so 44 bytes of key as the HMAC reads it). */
function freshKey(): string {
  return randomBytes(32).toString('base64');
}

type Resolved = Required<Pick<RedisRequestStateKeysOptions, 'key' | 'ttlSeconds' | 'connectTimeoutMs'>> &
  Pick<RedisRequestStateKeysOptions, 'url' | 'client'>;

function resolve(options: RedisRequestStateKeysOptions): Resolved {
  const checks = new RedisOptionChecks('redisRequestStateKeys', options, ['connect', 'eval', 'on']);
  const { url, client } = options;
  const resolved: Resolved = {
    key: checks.text('key', options.key, 'pier:request-state-key'),
    ttlSeconds: checks.int('ttlSeconds', options.ttlSeconds, 600, 1),
    connectTimeoutMs: checks.int('connectTimeoutMs', options.connectTimeoutMs, 2_000, 0),
    ...(url !== undefined && { url }),
    ...(client !== undefined && { client }),
  };
  checks.done();
  return resolved;
}
