import { PierError, type PierErrorOptions } from '@pier/core';

/**
 * Stable codes of {@link LimitsPluginError}; branch on these, not on messages.
 *
 * | code | when |
 * |---|---|
 * | `LIMITS_OPTIONS_INVALID` | `limitsPlugin()` got bad options: thrown, with every problem in `issues`, each naming its path (`rules[1].rate.limit`) |
 */
export type LimitsPluginErrorCode = 'LIMITS_OPTIONS_INVALID';

/**
 * The one error class of `@pier/plugin-limits` (a `PierError`). A refused request is not an error of this
 * class: the client gets a JSON-RPC error (`LIMIT_EXCEEDED`) or a tool error result, see the README.
 */
export class LimitsPluginError extends PierError<LimitsPluginErrorCode> {
  override readonly name = 'LimitsPluginError';

  constructor(code: LimitsPluginErrorCode, message: string, options?: PierErrorOptions) {
    super(code, message, options);
  }
}

/** The error of every problem a set of options had. */
export const optionsError = (message: string, issues: readonly string[]): LimitsPluginError =>
  new LimitsPluginError('LIMITS_OPTIONS_INVALID', message, { issues });

/** The message of anything thrown, without its stack (never a value the caller sent). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
