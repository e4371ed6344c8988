/**
 * Stable codes of {@link CreatePierError}.
 *
 * | code | when |
 * |---|---|
 * | `OPTIONS_INVALID` | an unknown flag, a bad value, a bad project name |
 * | `DIRECTORY_NOT_EMPTY` | the target directory has files, and `--force` was not given |
 * | `INSTALL_FAILED` | the package manager exited with an error |
 */
export type CreatePierErrorCode = 'OPTIONS_INVALID' | 'DIRECTORY_NOT_EMPTY' | 'INSTALL_FAILED';

/**
 * The one error class of `create-pier`; the command prints its message and exits with 1. `create-pier`
 * installs nothing of Pier before it runs, so it does not extend core's `PierError`; it carries the same
 * brand instead, so that `PierError.isInstance(error)` holds for it too.
 */
export class CreatePierError extends Error {
  override readonly name = 'CreatePierError';
  readonly code: CreatePierErrorCode;

  constructor(code: CreatePierErrorCode, message: string) {
    super(message);
    this.code = code;
  }

  /** The brand core's `PierError.isInstance` looks for (one global symbol, shared by every Pier package). */
  get [Symbol.for('@pier/core.PierError')](): true {
    return true;
  }
}
