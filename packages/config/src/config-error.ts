import type { ConfigIssue } from './issues.js';
import { formatIssue } from './issues.js';

/**
 * Stable codes of {@link ConfigError}, for branching without parsing messages.
 * - `CONFIG_INVALID`: the argv/environment did not validate (the error carries the issues).
 * - `CONFIG_SPEC_INVALID`: the spec itself is wrong (a secret with a default, a bad flag name…).
 * - `CONFIG_NOT_LOADED`: `configReport` got an object that `loadConfig`/`parseConfig` did not return.
 * - `CONFIG_EXIT_RETURNED`: the `exit` function given to `loadConfig` returned instead of ending the process.
 */
export type ConfigErrorCode =
  | 'CONFIG_INVALID'
  | 'CONFIG_SPEC_INVALID'
  | 'CONFIG_NOT_LOADED'
  | 'CONFIG_EXIT_RETURNED';

/**
 * The one error class of `@pier/config`. Its message never holds a secret's value. `@pier/config` imports
 * no other Pier package (it is used alone in any CLI), so it does not extend core's `PierError`; it carries
 * the same brand instead, so that `PierError.isInstance(error)` holds for it too. Its `issues` are
 * structured ({@link ConfigIssue}: path, source, code, message).
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code: ConfigErrorCode;
  /** For `CONFIG_INVALID`: every problem found, in the order they are printed. */
  readonly issues: readonly ConfigIssue[];

  constructor(code: ConfigErrorCode, message: string, issues: readonly ConfigIssue[] = []) {
    super(issues.length === 0 ? message : `${message}\n${issues.map(formatIssue).join('\n')}`);
    this.code = code;
    this.issues = issues;
  }

  /** The brand core's `PierError.isInstance` looks for (one global symbol, shared by every Pier package). */
  get [Symbol.for('@pier/core.PierError')](): true {
    return true;
  }
}
