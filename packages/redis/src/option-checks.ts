// The checks every factory of this package makes on its options: each bad value adds a line naming the
// option and what it got to `issues` (reported together, once), and the default is used meanwhile.
import { describeValue } from '@pier/core/transport';

export interface OptionChecks {
  /** `value` when it is a safe integer ≥ `min`, `fallback` when it is absent. */
  int(name: string, value: unknown, fallback: number, min: number): number;
  /** `value` when it is a non-empty string, `fallback` when it is absent. */
  text(name: string, value: unknown, fallback: string): string;
  /** Exactly one of `url` (redis:// or rediss://, never quoted) and `client` (with every method named). */
  urlOrClient(url: unknown, client: unknown, methods: readonly string[]): void;
}

export function optionChecks(issues: string[]): OptionChecks {
  return {
    int(name, value, fallback, min) {
      if (value === undefined) return fallback;
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
        issues.push(`${name} must be an integer ≥ ${min} (got ${describeValue(value)})`);
        return fallback;
      }
      return value;
    },
    urlOrClient(url, client, methods) {
      if ((url === undefined) === (client === undefined)) issues.push('give exactly one of url and client');
      // Never quote the URL: it may carry a password.
      if (url !== undefined && (typeof url !== 'string' || !/^rediss?:\/\//.test(url)))
        issues.push('url must be a redis:// or rediss:// URL');
      if (client === undefined) return;
      for (const method of methods) {
        if (typeof (client as Record<string, unknown> | null)?.[method] !== 'function')
          issues.push(`client must have a ${method}() method (a node-redis v6 client, or an adapter)`);
      }
    },
    text(name, value, fallback) {
      if (value === undefined) return fallback;
      if (typeof value !== 'string' || value === '') {
        issues.push(`${name} must be a non-empty string (got ${describeValue(value)})`);
        return fallback;
      }
      return value;
    },
  };
}
