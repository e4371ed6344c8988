/** Stable codes of {@link HealthPluginError}; branch on these, not on messages. */
export type HealthPluginErrorCode = 'HEALTH_OPTIONS_INVALID';

/**
 * The one error class of `@pier/plugin-health`. Thrown by `healthPlugin()` when its options or a check
 * definition are invalid; `issues` lists every problem found, each naming the check it is about.
 */
export class HealthPluginError extends Error {
  override readonly name = 'HealthPluginError';
  readonly code: HealthPluginErrorCode;
  readonly issues: readonly string[];

  constructor(code: HealthPluginErrorCode, issues: readonly string[]) {
    const summary =
      issues.length === 1
        ? `healthPlugin: ${issues[0]}`
        : `healthPlugin: ${issues.length} problems:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`;
    super(summary);
    this.code = code;
    this.issues = Object.freeze([...issues]);
  }
}
