// Request limits counted in Redis, so that N replicas share one count: every request's checks run in one
// Lua script (all counted or none), on Redis's clock (replicas' clocks may disagree). A rate is a GCRA
// token bucket in one string key, a quota a hash { window, used }, a concurrency cap a sorted set of
// holders whose scores are lease expiries, refreshed while the call runs: a replica that dies gives its
// slots back when their leases end. Every key expires when its state would be the empty state.
import { createHash } from 'node:crypto';
import type { LimitCheck, LimitHold, LimitOutcome, LimitStore } from '@pier/core';
import { type RedisConnectionLike, storeClient } from './client.js';
import { messageOf, PierRedisError } from './errors.js';
import { RedisOptionChecks } from './option-checks.js';
import { RespConnection, speaksResp } from './resp-connection.js';

/**
 * What the limit store calls on a Redis client. `createClient()` of `@redis/client` v6 satisfies it; another
 * client needs a small adapter (`eval`/`evalSha` with `{ keys, arguments }`).
 */
export interface RedisLimitClientLike extends RedisConnectionLike {
  ping(): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  /** Optional: runs a cached script by its SHA-1 (saves sending the script with every request). */
  evalSha?(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Options of {@link redisLimitStore}. Give `url` or `client`. */
export interface RedisLimitStoreOptions {
  /**
   * `redis://[user:password@]host:port[/db]`: the store makes (and closes) its own connection, a small RESP
   * client of this package's (`@redis/client` is not needed for it). Other schemes (`rediss://` for TLS) go
   * through a node-redis client it makes.
   */
  readonly url?: string;
  /** A node-redis v6 client (or an adapter), connected or not. The store never closes it. */
  readonly client?: RedisLimitClientLike;
  /** Prefix of every key. Replicas of one server share it. Default `pier:limit:`. */
  readonly prefix?: string;
  /**
   * How long one request's check may wait for Redis before it fails (and its rules fail open or closed),
   * in ms. Default 1,000: long enough for a loaded machine, short enough that a Redis that stopped
   * answering costs each call at most a second.
   */
  readonly timeoutMs?: number;
  /**
   * How long a concurrency slot outlives a replica that stopped refreshing it (it died), in ms. Running
   * calls refresh their slots every third of it. Default 30,000.
   */
  readonly leaseMs?: number;
  /** Errors the store cannot throw (a lease refresh that failed); each is a {@link PierRedisError}. */
  readonly onerror?: (error: PierRedisError) => void;
}

/** The store: core's `LimitStore`, with readiness and `close`. */
export interface RedisLimitStore extends LimitStore {
  /** Always a promise: the checks go to Redis. */
  consume(checks: readonly LimitCheck[]): Promise<readonly LimitOutcome[]>;
  release(holds: readonly LimitHold[]): Promise<void>;
  /** Resolves once the first connection is up (or failed for good). Never rejects. */
  readonly ready: Promise<void>;
  /** PINGs Redis: rejects when it cannot be reached (the limits plugin's health check). */
  check(): Promise<void>;
  /** Stops refreshing leases and closes the client the store made. Idempotent. */
  close(): Promise<void>;
}

// KEYS: one per check. ARGV: leaseMs, then per check: kind, limit, windowMs, cost-or-holder. Returns per
// check: allowed (1/0), remaining, resetMs, retryAfterMs — integers, as Redis returns numbers.
const CONSUME = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local lease = tonumber(ARGV[1])
local n = #KEYS
local out = {}
local apply = {}
local all = true
for i = 1, n do
  local kind = ARGV[2 + (i - 1) * 4]
  local limit = tonumber(ARGV[3 + (i - 1) * 4])
  local window = tonumber(ARGV[4 + (i - 1) * 4])
  local extra = ARGV[5 + (i - 1) * 4]
  local key = KEYS[i]
  local allowed, remaining, reset, retry = 1, 0, 0, 0
  if kind == 'rate' then
    local cost = tonumber(extra)
    local step = window / limit
    local tat = tonumber(redis.call('GET', key) or '0') or 0
    local base = math.max(tat, now)
    local nxt = base + cost * step
    local allowAt = nxt - window
    if allowAt > now + 0.000001 then
      allowed = 0
      remaining = math.floor((now + window - base) / step + 0.000001)
      reset = math.ceil(base - now)
      retry = math.ceil(allowAt - now)
    else
      remaining = math.floor((now + window - nxt) / step + 0.000001)
      reset = math.ceil(nxt - now)
      apply[i] = nxt
    end
  elseif kind == 'quota' then
    local cost = tonumber(extra)
    local start = math.floor(now / window) * window
    local stored = redis.call('HMGET', key, 'w', 'u')
    local used = 0
    if stored[1] and tonumber(stored[1]) == start then used = tonumber(stored[2]) or 0 end
    local left = start + window - now
    reset = math.ceil(left)
    if used + cost > limit then
      allowed = 0
      remaining = limit - used
      retry = math.ceil(left)
    else
      remaining = limit - used - cost
      apply[i] = { start, used + cost, start + window }
    end
  else
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
    local held = redis.call('ZCARD', key)
    if held + 1 > limit then
      allowed = 0
    else
      remaining = limit - held - 1
      apply[i] = extra
    end
  end
  if allowed == 0 then all = false end
  if remaining < 0 then remaining = 0 end
  out[#out + 1] = allowed
  out[#out + 1] = remaining
  out[#out + 1] = reset
  out[#out + 1] = retry
end
if all then
  for i = 1, n do
    local kind = ARGV[2 + (i - 1) * 4]
    local key = KEYS[i]
    local value = apply[i]
    if kind == 'rate' then
      redis.call('SET', key, string.format('%.3f', value), 'PX', math.max(1, math.ceil(value - now)))
    elseif kind == 'quota' then
      redis.call('HSET', key, 'w', string.format('%d', value[1]), 'u', value[2])
      redis.call('PEXPIREAT', key, string.format('%d', value[3]))
    else
      redis.call('ZADD', key, string.format('%.3f', now + lease), value)
      redis.call('PEXPIRE', key, lease)
    end
  end
end
return out`;

// KEYS: one per hold. ARGV: holders, in order. Gives the slots back; an empty set is deleted by Redis.
const RELEASE = `
for i = 1, #KEYS do redis.call('ZREM', KEYS[i], ARGV[i]) end
return 0`;

// KEYS: one per hold. ARGV: leaseMs, then holders in order. Extends the slots still held.
const REFRESH = `
local t = redis.call('TIME')
local until_ = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000 + tonumber(ARGV[1])
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], 'XX', string.format('%.3f', until_), ARGV[i + 1])
  redis.call('PEXPIRE', KEYS[i], ARGV[1])
end
return 0`;

/**
 * Makes the Redis limit store. Pass the same options to every replica, and the store to `limitsPlugin`:
 *
 * @example
 * ```ts
 * const store = redisLimitStore({ url: process.env.REDIS_URL });
 * limitsPlugin({ store, rules: [...] });
 * // on shutdown: await store.close();
 * ```
 */
export function redisLimitStore(options: RedisLimitStoreOptions): RedisLimitStore {
  return new ScriptLimitStore(resolveOptions(options));
}

type Resolved = Required<Pick<RedisLimitStoreOptions, 'prefix' | 'timeoutMs' | 'leaseMs'>> &
  Pick<RedisLimitStoreOptions, 'url' | 'client' | 'onerror'>;

class ScriptLimitStore implements RedisLimitStore {
  readonly ready: Promise<void>;
  readonly #options: Resolved;
  readonly #client: Promise<StoreClient>;
  /** The client once made: commands do not wait for a promise on the hot path. */
  #ready: StoreClient | undefined;
  #ownsClient = false;
  #closed = false;
  readonly #shas = new Map<string, string>();
  /** Redis keys of recent callers' limit keys (see `#key`). */
  readonly #digests = new Map<string, string>();
  /** Holds this process took and has not released: refreshed until they are. */
  readonly #held = new Map<string, LimitHold>();
  #refresher: NodeJS.Timeout | undefined;
  /** Rejection handlers of the store's own connection, one per command (none made per request). */
  readonly #failed = Object.fromEntries(
    COMMANDS.map((what) => [
      what,
      (error: unknown): never => {
        throw failure(what, error);
      },
    ]),
  ) as Readonly<Record<Command, (error: unknown) => never>>;

  constructor(options: Resolved) {
    this.#options = options;
    this.#client = this.#open();
    this.#client.catch(() => undefined);
    this.ready = this.#client.then(
      async (client) => {
        this.#ready = client;
        for (let waited = 0; !client.isReady && !this.#closed && waited < 10_000; waited += 25) {
          await sleep(25);
        }
        // The script is cached in Redis before the first request: no NOSCRIPT round trip then.
        if (client.isReady) await this.#run('load', CONSUME, [], ['1']).catch(() => undefined);
      },
      () => undefined,
    );
  }

  async consume(checks: readonly LimitCheck[]): Promise<readonly LimitOutcome[]> {
    const keys: string[] = [];
    const args: string[] = [String(this.#options.leaseMs)];
    for (const check of checks) {
      keys.push(this.#key(check.kind, check.key));
      if (check.kind === 'concurrency') args.push('concurrency', String(check.limit), '0', check.holder);
      else args.push(check.kind, String(check.limit), String(check.windowMs), String(check.cost));
    }
    const reply = await this.#run('consume', CONSUME, keys, args);
    if (!Array.isArray(reply) || reply.length !== checks.length * 4) {
      throw new PierRedisError('REDIS_LIMIT_STORE_FAILED', 'limit store: Redis answered an unexpected reply');
    }
    const outcomes: LimitOutcome[] = [];
    let allowed = true;
    for (let index = 0; index < checks.length; index++) {
      const at = index * 4;
      const outcome = {
        allowed: Number(reply[at]) === 1,
        remaining: Number(reply[at + 1]),
        resetMs: Number(reply[at + 2]),
        retryAfterMs: Number(reply[at + 3]),
      };
      if (!outcome.allowed) allowed = false;
      outcomes.push(outcome);
    }
    if (allowed) {
      for (let index = 0; index < checks.length; index++) {
        const check = checks[index] as LimitCheck;
        if (check.kind === 'concurrency') this.#hold(keys[index] as string, check.holder);
      }
    }
    return outcomes;
  }

  async release(holds: readonly LimitHold[]): Promise<void> {
    const keys: string[] = [];
    const holders: string[] = [];
    for (const { key, holder } of holds) {
      const full = this.#key('concurrency', key);
      this.#held.delete(`${full}\n${holder}`);
      keys.push(full);
      holders.push(holder);
    }
    if (this.#held.size === 0) this.#stopRefresher();
    if (keys.length > 0) await this.#run('release', RELEASE, keys, holders);
  }

  async check(): Promise<void> {
    const client = this.#ready ?? (await this.#client);
    if (!client.isReady) throw new PierRedisError('REDIS_LIMIT_STORE_FAILED', 'not connected to Redis');
    await client.ping();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopRefresher();
    this.#held.clear();
    const client = await this.#client.catch(() => undefined);
    if (this.#ownsClient && client?.isOpen) await client.close().catch(() => client.destroy());
  }

  /**
   * Keys are hashed: a principal (an e-mail address, say) is not written to Redis as it is. The digests of
   * the callers seen lately are kept (a SHA-256 per call costs more than the rest of the check's own work).
   */
  #key(kind: LimitCheck['kind'], key: string): string {
    const cacheKey = kind === 'rate' ? key : `${kind[0]}\n${key}`;
    let full = this.#digests.get(cacheKey);
    if (full === undefined) {
      const digest = createHash('sha256').update(key).digest('base64url').slice(0, 22);
      full = `${this.#options.prefix}${kind[0]}:${digest}`;
      // Bounded: past the cap the cache starts afresh (a digest is cheap to compute again).
      if (this.#digests.size >= MAX_CACHED_DIGESTS) this.#digests.clear();
      this.#digests.set(cacheKey, full);
    }
    return full;
  }

  #hold(key: string, holder: string): void {
    this.#held.set(`${key}\n${holder}`, { key, holder });
    if (this.#refresher !== undefined) return;
    this.#refresher = setInterval(() => this.#refresh(), Math.max(1, Math.floor(this.#options.leaseMs / 3)));
    this.#refresher.unref();
  }

  #refresh(): void {
    if (this.#held.size === 0) {
      this.#stopRefresher();
      return;
    }
    const keys: string[] = [];
    const args: string[] = [String(this.#options.leaseMs)];
    for (const { key, holder } of this.#held.values()) {
      keys.push(key);
      args.push(holder);
    }
    this.#run('refresh', REFRESH, keys, args).catch((error: unknown) => {
      try {
        this.#options.onerror?.(
          error instanceof PierRedisError
            ? error
            : new PierRedisError('REDIS_LIMIT_STORE_FAILED', `limit store: ${messageOf(error)}`),
        );
      } catch {}
    });
  }

  #stopRefresher(): void {
    if (this.#refresher !== undefined) clearInterval(this.#refresher);
    this.#refresher = undefined;
  }

  async #open(): Promise<StoreClient> {
    const { url } = this.#options;
    if (this.#options.client === undefined && url !== undefined && speaksResp(url)) {
      // Its own lean connection (resp-connection.ts): the check is on every counted call's path.
      const connection = new RespConnection(url, { timeoutMs: this.#options.timeoutMs });
      connection.on('error', () => {});
      connection.connect().catch(() => undefined);
      this.#ownsClient = true;
      return connection;
    }
    const { client, owned } = await storeClient<RedisLimitClientLike>(this.#options);
    this.#ownsClient = owned;
    return client;
  }

  /**
   * Runs a script, failing at once when Redis is not connected and after `timeoutMs` when it does not answer.
   * Not `async`: the hot path adds no promise of its own around the client's.
   */
  #run(what: Command, script: string, keys: string[], args: string[]): Promise<unknown> {
    if (this.#closed) {
      return Promise.reject(
        new PierRedisError('REDIS_LIMIT_STORE_FAILED', `limit store: ${what} after close()`),
      );
    }
    const client = this.#ready;
    // Before the first connection: wait for the client (`ready` sets #ready first, or the open failed).
    if (client === undefined) return this.#client.then(() => this.#run(what, script, keys, args));
    if (!client.isReady) {
      return Promise.reject(
        new PierRedisError('REDIS_LIMIT_STORE_FAILED', `limit store: ${what} failed: not connected to Redis`),
      );
    }
    if (client instanceof RespConnection) {
      // Its own connection times commands out itself (one timer for all); no promise around its own.
      return client.evalScript(this.#sha(script), script, keys, args).then(undefined, this.#failed[what]);
    }
    const { timeoutMs } = this.#options;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new PierRedisError(
              'REDIS_LIMIT_STORE_FAILED',
              `limit store: ${what} failed: Redis did not answer within ${timeoutMs} ms`,
            ),
          ),
        timeoutMs,
      );
      this.#eval(client, script, keys, args).then(
        (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(failure(what, error));
        },
      );
    });
  }

  #sha(script: string): string {
    let sha = this.#shas.get(script);
    if (sha === undefined) {
      sha = createHash('sha1').update(script).digest('hex');
      this.#shas.set(script, sha);
    }
    return sha;
  }

  /** EVALSHA when the client has it (the script is sent once, then named by its hash); EVAL on NOSCRIPT. */
  #eval(client: RedisLimitClientLike, script: string, keys: string[], args: string[]): Promise<unknown> {
    const options = { keys, arguments: args };
    try {
      if (client.evalSha === undefined) return client.eval(script, options);
      return client.evalSha(this.#sha(script), options).catch((error: unknown) => {
        if (!messageOf(error).includes('NOSCRIPT')) throw error;
        return client.eval(script, options);
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/** The store's client: the one it was given (or made with node-redis), or its own connection. */
type StoreClient = RedisLimitClientLike | RespConnection;

/** What the store asks Redis to do; named in its errors. */
const COMMANDS = ['load', 'consume', 'release', 'refresh'] as const;
type Command = (typeof COMMANDS)[number];

function failure(what: Command, error: unknown): PierRedisError {
  return new PierRedisError('REDIS_LIMIT_STORE_FAILED', `limit store: ${what} failed: ${messageOf(error)}`, {
    cause: error,
  });
}

/** Most limit keys whose Redis key is remembered. */
const MAX_CACHED_DIGESTS = 10_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function resolveOptions(options: RedisLimitStoreOptions): Resolved {
  const checks = new RedisOptionChecks('redisLimitStore', options, ['connect', 'eval', 'ping', 'on']);
  const { url, client, onerror } = options;
  const resolved: Resolved = {
    prefix: checks.text('prefix', options.prefix, 'pier:limit:'),
    timeoutMs: checks.int('timeoutMs', options.timeoutMs, 1_000, 1),
    leaseMs: checks.int('leaseMs', options.leaseMs, 30_000, 3),
    ...(url !== undefined && { url }),
    ...(client !== undefined && { client }),
    ...(onerror !== undefined && { onerror }),
  };
  checks.callback('onerror', onerror);
  checks.done();
  return resolved;
}
