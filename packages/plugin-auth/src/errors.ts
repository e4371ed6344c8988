/** Stable codes of {@link AuthPluginError}; branch on these, not on messages. */
export type AuthPluginErrorCode = 'AUTH_OPTIONS_INVALID';

/**
 * The one error class of `@pier/plugin-auth`. Thrown by `authPlugin()` and the verifier factories when
 * their options are invalid; `issues` lists every problem found, each naming the option.
 */
export class AuthPluginError extends Error {
  override readonly name = 'AuthPluginError';
  readonly code: AuthPluginErrorCode;
  readonly issues: readonly string[];

  constructor(code: AuthPluginErrorCode, where: string, issues: readonly string[]) {
    const summary =
      issues.length === 1
        ? `${where}: ${issues[0]}`
        : `${where}: ${issues.length} problems:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`;
    super(summary);
    this.code = code;
    this.issues = Object.freeze([...issues]);
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
export class TokenRejectedError extends Error {
  override readonly name = 'TokenRejectedError';
  readonly reason: RejectionReason;

  constructor(reason: RejectionReason, message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

/** Collects option problems, then throws them all at once. */
export class Issues {
  readonly #list: string[] = [];
  add(issue: string): void {
    this.#list.push(issue);
  }
  throwIfAny(where: string): void {
    if (this.#list.length > 0) throw new AuthPluginError('AUTH_OPTIONS_INVALID', where, this.#list);
  }
}

/** A value for an error message: its type and a short form, never a long or secret string. */
export function shown(value: unknown): string {
  if (typeof value === 'string')
    return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}
