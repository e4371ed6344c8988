// The one error class of @pier/oauth-proxy, and the issues collector its factories report through.
import { PierError } from '@pier/core';

/**
 * Stable codes of {@link OAuthProxyError}; branch on these, not on messages.
 *
 * | code | when |
 * |---|---|
 * | `OAUTH_PROXY_OPTIONS_INVALID` | `oauthProxy()`, `github()`, `google()` or `oidc()` called with bad options (thrown; `issues` lists each) |
 * | `UPSTREAM_TOKEN_UNAVAILABLE` | `upstreamToken(ctx.auth)`: the caller was not authenticated by the proxy, or their login was revoked |
 * | `UPSTREAM_TOKEN_EXPIRED` | `upstreamToken(ctx.auth)`: the provider's token expired and the provider would not refresh it (the user must log in again) |
 * | `UPSTREAM_FAILED` | the provider could not be reached or answered something unusable (discovery, token exchange, refresh, user lookup) |
 */
export type OAuthProxyErrorCode =
  | 'OAUTH_PROXY_OPTIONS_INVALID'
  | 'UPSTREAM_TOKEN_UNAVAILABLE'
  | 'UPSTREAM_TOKEN_EXPIRED'
  | 'UPSTREAM_FAILED';

// PierError's constructor names core's codes only; this package's codes are its own, so the base is typed
// for any string. `instanceof PierError` and `PierError.isInstance` hold for every OAuthProxyError.
const Base = PierError as unknown as new (
  code: string,
  message: string,
  options?: { cause?: unknown },
) => Error & { readonly code: string };

/** The one error class of `@pier/oauth-proxy` (a `PierError`): a stable `code`, a message without secrets. */
export class OAuthProxyError extends Base {
  override readonly name = 'OAuthProxyError';
  declare readonly code: OAuthProxyErrorCode;
  /** Every problem found, for `OAUTH_PROXY_OPTIONS_INVALID`; empty otherwise. */
  readonly issues: readonly string[];
  /** The OAuth error code the provider answered (`invalid_grant`…), when it answered one. */
  readonly upstreamError: string | undefined;

  constructor(
    code: OAuthProxyErrorCode,
    message: string,
    options?: { cause?: unknown; issues?: readonly string[]; upstreamError?: string | undefined },
  ) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.issues = Object.freeze([...(options?.issues ?? [])]);
    this.upstreamError = options?.upstreamError;
  }
}

/** Collects option problems, then throws them all at once, each naming its option. */
export class Issues {
  readonly #list: string[] = [];
  add(issue: string): void {
    this.#list.push(issue);
  }
  get count(): number {
    return this.#list.length;
  }
  throwIfAny(where: string): void {
    if (this.#list.length === 0) return;
    const list = this.#list;
    const message =
      list.length === 1
        ? `${where}: ${list[0]}`
        : `${where}: ${list.length} problems:\n${list.map((issue) => `  - ${issue}`).join('\n')}`;
    throw new OAuthProxyError('OAUTH_PROXY_OPTIONS_INVALID', message, { issues: list });
  }
}

/** A value for an error message: its type and a short form, never a long or secret string. */
export function shown(value: unknown): string {
  if (typeof value === 'string') {
    return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value);
  }
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}
