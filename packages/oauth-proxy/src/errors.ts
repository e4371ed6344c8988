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

/** The one error class of `@pier/oauth-proxy` (a `PierError`): a stable `code`, a message without secrets. */
export class OAuthProxyError extends PierError<OAuthProxyErrorCode> {
  override readonly name = 'OAuthProxyError';
  /** The OAuth error code the provider answered (`invalid_grant`…), when it answered one. */
  readonly upstreamError: string | undefined;

  constructor(
    code: OAuthProxyErrorCode,
    message: string,
    options?: { cause?: unknown; issues?: readonly string[]; upstreamError?: string | undefined },
  ) {
    super(code, message, options);
    this.upstreamError = options?.upstreamError;
  }
}

/** The error of every problem a set of options had (`issues.throwIfAny(optionsError)`). */
export const optionsError = (message: string, issues: readonly string[]): OAuthProxyError =>
  new OAuthProxyError('OAUTH_PROXY_OPTIONS_INVALID', message, { issues });
