import { PierError } from '@pier/core';

/** Stable codes of {@link HttpTransportError}; branch on these, not on messages. */
export type HttpTransportErrorCode =
  /** An option of `listen({ transport: 'streamable-http', ... })` is invalid; `issues` names each one. */
  | 'HTTP_OPTIONS_INVALID'
  /** The server could not bind its address (port in use, address not available, no permission). */
  | 'HTTP_LISTEN_FAILED';

/**
 * The one error class of `@pier/transport-http`, a `PierError`. `httpTransport`, `createFetchHandler` and
 * `createNodeHandler` throw it when their options are invalid (`issues` lists every problem found), and
 * `listen()` rejects with it when the address cannot be bound.
 */
export class HttpTransportError extends PierError<HttpTransportErrorCode> {
  override readonly name = 'HttpTransportError';
}

/** What `OptionIssues.throwIfAny` makes of the problems found in a transport's options. */
export function optionsError(message: string, issues: readonly string[]): HttpTransportError {
  return new HttpTransportError('HTTP_OPTIONS_INVALID', message, { issues });
}

/** The message of anything thrown, for a log line. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
