// The checks every factory of this package makes on its options: each bad value adds a line naming the
// option and what it got to `issues` (reported together, once), and the default is used meanwhile.
import { describeValue } from '@pier/core/transport';

export interface OptionChecks {
  /** `value` when it is a safe integer ≥ `min`, `fallback` when it is absent. */
  int(name: string, value: unknown, fallback: number, min: number): number;
  /** `value` when it is a non-empty string, `fallback` when it is absent. */
  text(name: string, value: unknown, fallback: string): string;
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
