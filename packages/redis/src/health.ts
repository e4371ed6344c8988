// A `redis` check for @pier/plugin-health, shaped like its HealthCheckDefinition without importing it.

import type { RedisClientLike } from './client.js';
import { messageOf, PierRedisError } from './errors.js';

/** Options of {@link redisHealthCheck} and `bus.healthCheck()`. */
export interface RedisHealthCheckOptions {
  /** Name of the check in `/health`. Default `redis`. */
  readonly name?: string;
  /**
   * Default `false`: Redis down makes the server `degraded`, still ready. `true` makes every replica
   * unready in a Redis blip — the load balancer then has nowhere to send anyone.
   */
  readonly critical?: boolean;
  /** Overrides plugin-health's per-check timeout. */
  readonly timeoutMs?: number;
}

/** A check `healthPlugin({ checks: [...] })` accepts (the shape of plugin-health's `HealthCheckDefinition`). */
export interface RedisHealthCheck {
  readonly name: string;
  readonly critical: boolean;
  readonly timeoutMs?: number;
  check(context: { readonly signal: AbortSignal }): Promise<RedisHealthCheckResult>;
}

/** What the check resolves. */
export interface RedisHealthCheckResult {
  readonly status: 'healthy' | 'unhealthy';
  readonly message?: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Internal extras the bus adds to the check. */
interface CheckExtras {
  readonly describe?: () => Record<string, unknown>;
  readonly extraUnhealthy?: () => string | undefined;
}

/**
 * A health check that PINGs Redis. Pass a client, or a function returning one (undefined while none).
 *
 * @example
 * ```ts
 * healthPlugin({ checks: [redisHealthCheck(client)] })
 * ```
 */
export function redisHealthCheck(
  client: RedisClientLike | (() => RedisClientLike | undefined),
  options: RedisHealthCheckOptions & CheckExtras = {},
): RedisHealthCheck {
  const { name = 'redis', critical = false, timeoutMs, describe, extraUnhealthy } = options;
  if (typeof name !== 'string' || name === '' || typeof critical !== 'boolean') {
    throw new PierRedisError(
      'REDIS_OPTIONS_INVALID',
      'redisHealthCheck: name must be a non-empty string and critical a boolean',
    );
  }
  const current = typeof client === 'function' ? client : () => client;
  return {
    name,
    critical,
    ...(timeoutMs !== undefined && { timeoutMs }),
    async check() {
      const details = describe?.() ?? {};
      const redis = current();
      // Not connected: answer now rather than queue a PING that would only time out.
      if (redis === undefined || !redis.isReady) {
        return { status: 'unhealthy', message: 'not connected to Redis', details };
      }
      try {
        await redis.ping();
      } catch (error) {
        return { status: 'unhealthy', message: `PING failed: ${messageOf(error)}`, details };
      }
      const problem = extraUnhealthy?.();
      if (problem !== undefined) return { status: 'unhealthy', message: problem, details };
      return { status: 'healthy', details };
    },
  };
}
