import { PierError, type PierErrorOptions } from '@pier/core';

/**
 * Stable codes of {@link PierRedisError}; branch on these, not on messages.
 *
 * | code | when |
 * |---|---|
 * | `REDIS_OPTIONS_INVALID` | `redisEventBus()` or `redisHealthCheck()` called with bad options (thrown) |
 * | `REDIS_NOT_INSTALLED` | a `url` was given but `@redis/client` is not installed (reported to `onerror`) |
 * | `REDIS_PUBLISH_FAILED` | an event could not be written to Redis (reported to `onerror`; local delivery happened) |
 * | `REDIS_QUEUE_FULL` | Redis was unreachable for longer than the offline queue holds: the oldest events were dropped |
 * | `REDIS_READ_FAILED` | the reader lost its connection (reported once per outage; it reconnects by itself) |
 * | `REDIS_SESSIONS_FAILED` | the session relay could not claim, refresh or release a session record (reported to `onerror`; a claim that fails refuses the session with 503) |
 * | `REDIS_EVENTS_LOST` | after a reconnect, events of other replicas could not be replayed (Redis restarted or trimmed them): listeners were told to re-read |
 * | `REDIS_LIMIT_STORE_FAILED` | a limit store command failed (Redis unreachable, or no answer within `timeoutMs`): thrown by `consume`, so the limits plugin fails open or closed per rule; a failed lease refresh goes to `onerror` |
 * | `REDIS_TASK_STORE_FAILED` | a task store command failed (Redis unreachable, a duplicate task id, a record not JSON): thrown by the store's methods; a lost change channel goes to `onerror` |
 * | `REDIS_KV_STORE_FAILED` | a key-value store command failed (Redis unreachable, a bad key, value or TTL): thrown by the store's methods |
 * | `REDIS_KEYS_FAILED` | the request-state keys could not be read or rotated (Redis unreachable, a key not a string): thrown by `read()`/`rotate()`; core then goes on with the keys it read last |
 */
export type PierRedisErrorCode =
  | 'REDIS_OPTIONS_INVALID'
  | 'REDIS_NOT_INSTALLED'
  | 'REDIS_PUBLISH_FAILED'
  | 'REDIS_QUEUE_FULL'
  | 'REDIS_READ_FAILED'
  | 'REDIS_EVENTS_LOST'
  | 'REDIS_SESSIONS_FAILED'
  | 'REDIS_TASK_STORE_FAILED'
  | 'REDIS_LIMIT_STORE_FAILED'
  | 'REDIS_KV_STORE_FAILED'
  | 'REDIS_KEYS_FAILED';

/**
 * The one error class of `@pier/redis` (a `PierError`). Options errors are thrown, with `issues` listing
 * every problem; runtime ones go to `onerror`.
 */
export class PierRedisError extends PierError<PierRedisErrorCode> {
  override readonly name = 'PierRedisError';

  constructor(code: PierRedisErrorCode, message: string, options?: PierErrorOptions) {
    super(code, message, options);
  }
}

/** The message of anything thrown, for wrapping it in a {@link PierRedisError}. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
