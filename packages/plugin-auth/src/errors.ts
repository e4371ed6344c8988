import { PierError, type PierErrorOptions } from '@pier/core';

/** Stable codes of {@link AuthPluginError}; branch on these, not on messages. */
export type AuthPluginErrorCode = 'AUTH_OPTIONS_INVALID';

/**
 * The one error class of `@pier/plugin-auth` (a `PierError`). Thrown by `authPlugin()` and the verifier
 * factories when their options are invalid; `issues` lists every problem found, each naming the option.
 */
export class AuthPluginError extends PierError<AuthPluginErrorCode> {
  override readonly name = 'AuthPluginError';

  constructor(code: AuthPluginErrorCode, message: string, options?: PierErrorOptions) {
    super(code, message, options);
  }
}

/**
 * Why a token was refused, as logged (never the token itself). `unavailable` means the verifier could not
 * decide (key set or introspection endpoint unreachable): the client is told to retry, not to log in again.
 */
export type RejectionReason =
  | 'malformed'
  | 'expired'
  | 'not_yet_valid'
  | 'iss'
  | 'aud'
  | 'sig'
  | 'alg'
  | 'kid'
  | 'typ'
  | 'claims'
  | 'bound'
  | 'inactive'
  | 'unknown'
  | 'unavailable';

/**
 * Thrown by a verifier (yours too, from {@link custom}) to refuse a token: 401 `invalid_token`, or 503
 * when `reason` is `unavailable`. `message` goes to the log and, for 401, to `error_description`: never
 * put the token or anything from it there.
 */
export class TokenRejectedError extends PierError<'TOKEN_REJECTED'> {
  override readonly name = 'TokenRejectedError';
  readonly reason: RejectionReason;

  constructor(reason: RejectionReason, message: string, options?: { readonly cause?: unknown }) {
    super('TOKEN_REJECTED', message, options);
    this.reason = reason;
  }
}

/** The error of every problem a set of options had (`issues.throwIfAny(optionsError)`). */
export const optionsError = (message: string, issues: readonly string[]): AuthPluginError =>
  new AuthPluginError('AUTH_OPTIONS_INVALID', message, { issues });
