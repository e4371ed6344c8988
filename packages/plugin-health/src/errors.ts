import { PierError, type PierErrorOptions } from '@pier/core';

/** Stable codes of {@link HealthPluginError}; branch on these, not on messages. */
export type HealthPluginErrorCode = 'HEALTH_OPTIONS_INVALID';

/**
 * The one error class of `@pier/plugin-health` (a `PierError`). Thrown by `healthPlugin()` when its options or a check
 * definition are invalid; `issues` lists every problem found, each naming the check it is about.
 */
export class HealthPluginError extends PierError<HealthPluginErrorCode> {
  override readonly name = 'HealthPluginError';

  constructor(code: HealthPluginErrorCode, message: string, options?: PierErrorOptions) {
    super(code, message, options);
  }
}

/** The error of every problem a set of options had. */
export const optionsError = (message: string, issues: readonly string[]): HealthPluginError =>
  new HealthPluginError('HEALTH_OPTIONS_INVALID', message, { issues });
