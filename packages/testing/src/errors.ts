import { PierError } from '@pier/core';

/**
 * Stable codes of {@link TestingError}; branch on these, not on messages.
 *
 * | code | when |
 * |---|---|
 * | `OPTIONS_INVALID` | `connect` or `spawnServer` got an option it cannot use (an unknown era, a server over stdio…) |
 * | `CONNECT_FAILED` | the client could not connect (the SDK's error is the `cause`) |
 * | `PROCESS_FAILED` | a spawned server exited before it printed its URL |
 * | `TIMEOUT` | a spawned server printed no URL in time, or an awaited notification never came |
 */
export type TestingErrorCode = 'OPTIONS_INVALID' | 'CONNECT_FAILED' | 'PROCESS_FAILED' | 'TIMEOUT';

/** The one error class of `@pier/testing`: a `PierError` with a stable `code`. */
export class TestingError extends PierError<TestingErrorCode> {
  override readonly name = 'TestingError';
}

/** What `OptionIssues.throwIfAny` makes of the problems found in options. */
export function optionsError(message: string, issues: readonly string[]): TestingError {
  return new TestingError('OPTIONS_INVALID', message, { issues });
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
