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

/** The one error class of `@pier/testing`, with a stable `code`. */
export class TestingError extends Error {
  override readonly name = 'TestingError';
  readonly code: TestingErrorCode;

  constructor(code: TestingErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** A short, safe description of a bad value for an error message (never the whole value). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length > 40 ? `"${value.slice(0, 40)}…"` : `"${value}"`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'function') return 'a function';
  return String(value);
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
