/**
 * Stable codes of {@link CliError}; the exit code follows from the code.
 *
 * | code | exit | when |
 * |---|---|---|
 * | `USAGE` | 2 | an unknown command or flag, a missing or malformed argument (`issues` lists every one) |
 * | `CONNECT_FAILED` | 1 | the server could not be reached or refused the handshake |
 * | `CALL_FAILED` | 1 | the server answered a request with an error (a tool result with `isError` exits 1 without one) |
 * | `CONFIG_INVALID` | 1 | a client's configuration file cannot be read or merged, or there is no build to install |
 * | `DEV_FAILED` | 1 | `pier dev` could not build or start the server at all |
 */
export type CliErrorCode = 'USAGE' | 'CONNECT_FAILED' | 'CALL_FAILED' | 'CONFIG_INVALID' | 'DEV_FAILED';

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
  /** For a usage error: every problem found in the command line, in order (the message lists them too). */
  readonly issues: readonly string[];

  constructor(
    code: CliErrorCode,
    message: string,
    options?: { readonly cause?: unknown; readonly issues?: readonly string[] },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.exitCode = code === 'USAGE' ? 2 : 1;
    this.issues = Object.freeze([...(options?.issues ?? [])]);
  }

  /** The brand core's `PierError.isInstance` looks for (one global symbol, shared by every Pier package). */
  get [Symbol.for('@pier/core.PierError')](): true {
    return true;
  }
}

/** A usage error with one problem (exit 2); {@link UsageIssues} gathers several. */
export function usage(message: string): CliError {
  return new CliError('USAGE', message);
}

/**
 * Every problem of one command line, reported together: each check adds what it found and goes on (with
 * a fallback), and {@link UsageIssues.throwIfAny} throws one usage error listing them all — as core's
 * `OptionIssues` does for options, with the same message shape (`where: problem`, or `where: N problems:`
 * and one line each).
 */
export class UsageIssues {
  readonly #command: string;
  readonly #list: string[] = [];
  #helpful = false;

  /** @param command the command, as messages start: `call`, `install`… */
  constructor(command: string) {
    this.#command = command;
  }

  /** Records a problem (name the flag or argument in it). `help`: the command's --help would show the fix. */
  add(issue: string, options?: { readonly help?: boolean }): void {
    this.#list.push(issue);
    if (options?.help === true) this.#helpful = true;
  }

  get count(): number {
    return this.#list.length;
  }

  /** Throws one usage error with every problem recorded, when there is any. */
  throwIfAny(): void {
    if (this.#list.length === 0) return;
    const where = this.#command;
    const issues = Object.freeze([...this.#list]);
    const hint = this.#helpful ? `see pier ${where} --help` : '';
    const message =
      issues.length === 1
        ? `${where}: ${issues[0]}${hint === '' ? '' : `; ${hint}`}`
        : `${where}: ${issues.length} problems:\n${issues.map((issue) => `  - ${issue}`).join('\n')}${hint === '' ? '' : `\n${hint}`}`;
    throw new CliError('USAGE', message, { issues });
  }
}

export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause !== undefined && !error.message.includes(cause)
    ? `${error.message} (${cause})`
    : error.message;
}
