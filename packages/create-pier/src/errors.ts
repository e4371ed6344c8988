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

/** The one error class of `create-pier`; the command prints its message and exits with 1. */
export class CreatePierError extends Error {
  override readonly name = 'CreatePierError';
  readonly code: CreatePierErrorCode;

  constructor(code: CreatePierErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
