// The few Redis commands Pier needs, as a structural interface: a node-redis v6 client fits as is, and an
// ioredis or iovalkey user can pass a small adapter.
import { PierRedisError } from './errors.js';

/** One stream entry, as node-redis returns it. */
export interface RedisStreamEntry {
  readonly id: string;
  readonly message: Readonly<Record<string, string>>;
}

/**
 * The connection part every Redis client Pier takes shares: a node-redis v6 client has it as is. Each store's
 * client type adds the commands it runs.
 */
export interface RedisConnectionLike {
  /** `true` while connected and able to run commands. */
  readonly isReady: boolean;
  /** `true` once `connect()` was called and until `close()`/`destroy()`. */
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  /** Graceful close: pending commands finish. */
  close(): Promise<unknown>;
  /** Immediate close: pending commands fail. */
  destroy(): unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}

/**
 * What `@pier/redis` calls on a Redis client. `createClient()` of `@redis/client` v6 satisfies it. Replies
 * of `xRead` are read defensively (RESP2 and RESP3 shapes both work).
 */
export interface RedisClientLike extends RedisConnectionLike {
  /** A new client with the same options (and `overrides`), not connected yet. */
  duplicate(overrides?: Record<string, unknown>): RedisClientLike;
  ping(): Promise<unknown>;
  xAdd(
    key: string,
    id: string,
    message: Record<string, string>,
    options?: { TRIM?: { strategy: 'MAXLEN'; strategyModifier?: '~' | '='; threshold: number } },
  ): Promise<unknown>;
  xRead(streams: { key: string; id: string }, options?: { BLOCK?: number; COUNT?: number }): Promise<unknown>;
  xRange(key: string, start: string, end: string, options?: { COUNT?: number }): Promise<unknown>;
  xRevRange(key: string, end: string, start: string, options?: { COUNT?: number }): Promise<unknown>;
}

/**
 * Makes a client for `url` with `@redis/client` (an optional peer dependency, loaded only when a URL is
 * given). The offline queue is off: a command sent while disconnected fails at once instead of piling up in
 * memory, and Pier keeps its own bounded queue.
 *
 * node-redis's per-command timeout is off too. By default (5 s) every command gets an
 * `AbortSignal.timeout`, whose timer outlives the command by five seconds even though it only guards the
 * wait before the command is written: with the offline queue off, that wait is a write turn, or a socket
 * Redis stopped reading. At a few thousand commands a second those timers were most of what survived each
 * young-generation collection of a replica (≈ 1 MB per scavenge, promoted to old space, PROFILE.md), and
 * the pauses they caused were in the tail of cross-replica notification latency.
 */
export async function createRedisClient(url: string): Promise<RedisClientLike> {
  let module: { createClient(options: Record<string, unknown>): unknown };
  try {
    module = (await import('@redis/client')) as never;
  } catch (error) {
    throw new PierRedisError(
      'REDIS_NOT_INSTALLED',
      '@pier/redis: a url was given but @redis/client is not installed; run `npm install @redis/client@6`, or pass a client',
      { cause: error },
    );
  }
  return module.createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout: 0 },
    // Reconnect forever, never slower than once a second: a replica must come back when Redis does.
    socket: { reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 5), 1_000) },
  }) as RedisClientLike;
}

/** The entries of an `XREAD` reply for one stream, in RESP2 or RESP3 shape; `[]` for none. */
export function entriesOf(reply: unknown): RedisStreamEntry[] {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) {
    // RESP2 transform: [{ name, messages }]; XRANGE: [{ id, message }].
    const out: RedisStreamEntry[] = [];
    for (const item of reply) {
      if (item !== null && typeof item === 'object' && 'messages' in item) {
        out.push(...entriesOf((item as { messages: unknown }).messages));
      } else if (item !== null && typeof item === 'object' && 'id' in item) {
        out.push(item as RedisStreamEntry);
      }
    }
    return out;
  }
  if (reply instanceof Map) return [...reply.values()].flatMap((value) => entriesOf(value));
  if (typeof reply === 'object') return Object.values(reply).flatMap((value) => entriesOf(value));
  return [];
}

/** What a store needs of a client it may have made itself. */
type OpenableClient = Pick<RedisConnectionLike, 'isOpen' | 'connect' | 'on'>;

/**
 * The client a store runs on: the one it was given, or one it makes for `url` (then `owned`: the store
 * closes it). Connecting starts at once and is never awaited here: node-redis retries a first connection
 * forever, and each store decides how long a command waits for it.
 */
export async function storeClient<T extends OpenableClient>(options: {
  readonly url?: string | undefined;
  readonly client?: T | undefined;
}): Promise<{ readonly client: T; readonly owned: boolean }> {
  let client: T;
  let owned = false;
  if (options.client !== undefined) client = options.client;
  else {
    client = (await createRedisClient(options.url as string)) as unknown as T;
    owned = true;
    // Reported by the commands that fail; without a listener node-redis would crash the process.
    client.on('error', () => {});
  }
  if (!client.isOpen) client.connect().catch(() => undefined);
  return { client, owned };
}

/**
 * Waits (polling every 25 ms) until `client` can run commands; `false` when `timeoutMs` passed or
 * `stopped()` said to give up first. node-redis retries a lost connection forever: this bounds the wait.
 */
export async function untilReady(
  client: { readonly isReady: boolean },
  timeoutMs: number,
  stopped: () => boolean,
): Promise<boolean> {
  for (let waited = 0; !client.isReady; waited += 25) {
    if (waited >= timeoutMs || stopped()) return false;
    await new Promise((wake) => setTimeout(wake, 25).unref());
  }
  return true;
}
