/**
 * Stable codes of {@link CliError}; the exit code follows from the code.
 *
 * | code | exit | when |
 * |---|---|---|
 * | `USAGE` | 2 | an unknown command or flag, a missing or malformed argument |
 * | `CONNECT_FAILED` | 1 | the server could not be reached or refused the handshake |
 * | `CALL_FAILED` | 1 | the server answered a request with an error, or a tool with `isError` |
 * | `CONFIG_INVALID` | 1 | a client's configuration file cannot be read or merged |
 * | `DEV_FAILED` | 1 | `pier dev` could not build or start the server at all |
 * | `CHECK_FAILED` | 1 | `pier doctor` found a failing step |
 */
export type CliErrorCode =
  | 'USAGE'
  | 'CONNECT_FAILED'
  | 'CALL_FAILED'
  | 'CONFIG_INVALID'
  | 'DEV_FAILED'
  | 'CHECK_FAILED';

/**
 * The one error class of `@pier/cli`: `pier` prints its message on stderr and exits with `exitCode`. The
 * CLI imports no Pier package (it works with any MCP server), so it does not extend core's `PierError`; it
 * carries the same brand instead, so that `PierError.isInstance(error)` holds for it too.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly code: CliErrorCode;
  /** 2 for a usage error, 1 for everything else. */
  readonly exitCode: 1 | 2;

  constructor(code: CliErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.exitCode = code === 'USAGE' ? 2 : 1;
  }

  /** The brand core's `PierError.isInstance` looks for (one global symbol, shared by every Pier package). */
  get [Symbol.for('@pier/core.PierError')](): true {
    return true;
  }
}

export function usage(message: string): CliError {
  return new CliError('USAGE', message);
}

export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause !== undefined && !error.message.includes(cause)
    ? `${error.message} (${cause})`
    : error.message;
}
