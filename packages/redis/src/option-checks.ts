// The checks every factory of this package makes on its options, on core's OptionIssues: each bad value
// adds a line naming the option and what it got (reported together, once, as REDIS_OPTIONS_INVALID), and
// the default is used meanwhile. The connection (a `url` or a `client`) is checked here, once for all.
import { describeValue, OptionIssues } from '@pier/core';
import { PierRedisError } from './errors.js';

/** The error of every problem a set of options had. */
export const optionsError = (message: string, issues: readonly string[]): PierRedisError =>
  new PierRedisError('REDIS_OPTIONS_INVALID', message, { issues });

/** The option checks of one factory (`redisEventBus`…). */
export class RedisOptionChecks extends OptionIssues {
  /**
   * Checks that `options` is an object (throwing at once when it is not) holding exactly one of `url` (a
   * `redis://` or `rediss://` URL, never quoted: it may carry a password) and `client` (with `methods`).
   */
  constructor(where: string, options: unknown, methods: readonly string[]) {
    super(where);
    if (options === null || typeof options !== 'object') {
      this.expect('options', 'an object', options);
      this.throwNow(optionsError);
    }
    const { url, client } = options as { url?: unknown; client?: unknown };
    if ((url === undefined) === (client === undefined)) this.add('give exactly one of url and client');
    if (url !== undefined && (typeof url !== 'string' || !/^rediss?:\/\//.test(url))) {
      this.add('url must be a redis:// or rediss:// URL');
    }
    if (client !== undefined) {
      for (const method of methods) {
        if (typeof (client as Record<string, unknown> | null)?.[method] !== 'function') {
          this.add(`client must have a ${method}() method (a node-redis v6 client, or an adapter)`);
        }
      }
    }
  }

  /** `value` when it is a safe integer ≥ `min`, `fallback` when it is absent. */
  int(name: string, value: unknown, fallback: number, min: number): number {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
      this.add(`${name} must be an integer ≥ ${min} (got ${describeValue(value)})`);
      return fallback;
    }
    return value;
  }

  /** `value` when it is a non-empty string, `fallback` when it is absent. */
  text(name: string, value: unknown, fallback: string): string {
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || value === '') {
      this.add(`${name} must be a non-empty string (got ${describeValue(value)})`);
      return fallback;
    }
    return value;
  }

  /** `value` when it is absent or a function. */
  callback(name: string, value: unknown): void {
    if (value !== undefined && typeof value !== 'function') this.add(`${name} must be a function`);
  }

  /** Throws every problem found, as one `REDIS_OPTIONS_INVALID`. */
  done(): void {
    this.throwIfAny(optionsError);
  }
}
