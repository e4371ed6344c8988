/** Stable codes of {@link HttpTransportError}; branch on these, not on messages. */
export type HttpTransportErrorCode =
  /** An option of `listen({ transport: 'streamable-http', ... })` is invalid; `issues` names each one. */
  | 'HTTP_OPTIONS_INVALID'
  /** The server could not bind its address (port in use, address not available, no permission). */
  | 'HTTP_LISTEN_FAILED';

/**
 * The one error class of `@pier/transport-http`. `startHttpTransport` rejects with it when its options are
 * invalid or the address cannot be bound; `issues` lists every problem found.
 */
export class HttpTransportError extends Error {
  override readonly name = 'HttpTransportError';
  readonly code: HttpTransportErrorCode;
  readonly issues: readonly string[];

  constructor(code: HttpTransportErrorCode, issues: readonly string[], options?: { cause?: unknown }) {
    const summary =
      issues.length === 1
        ? `streamable-http: ${issues[0]}`
        : `streamable-http: ${issues.length} problems:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`;
    super(summary, options);
    this.code = code;
    this.issues = Object.freeze([...issues]);
  }
}

/** The message of anything thrown, for a log line. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
