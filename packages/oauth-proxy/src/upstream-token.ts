// What a tool gets of the provider's token: an object that prints as redacted everywhere (String, JSON,
// util.inspect, template literals) and gives the value only through `reveal()`, so that passing it to a
// logger by mistake leaks nothing.
import type { AuthInfo } from '@pier/core';
import { OAuthProxyError } from './errors.js';

const REDACTED = '[redacted upstream token]';

/** The provider's access token for the user behind the request. */
export class UpstreamToken {
  readonly #value: string;
  /** The provider's name ("GitHub", "Google", the issuer's host). */
  readonly provider: string;
  /** The scopes the provider granted (what the token may do at its API). */
  readonly scopes: readonly string[];
  /** When it expires, in seconds since the epoch; `undefined` when the provider did not say. */
  readonly expiresAt: number | undefined;
  /** The token type the provider gave (`Bearer`). */
  readonly tokenType: string;

  constructor(
    value: string,
    details: { provider: string; scopes: readonly string[]; expiresAt?: number; tokenType: string },
  ) {
    this.#value = value;
    this.provider = details.provider;
    this.scopes = Object.freeze([...details.scopes]);
    this.expiresAt = details.expiresAt;
    this.tokenType = details.tokenType;
    Object.freeze(this);
  }

  /** The token itself, to call the provider's API with (`Authorization: Bearer ${token.reveal()}`). Never log it. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): Record<string, unknown> {
    return { provider: this.provider, scopes: this.scopes, expiresAt: this.expiresAt, token: REDACTED };
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  /** What `util.inspect` (and so `console.log`) shows. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `UpstreamToken { provider: ${JSON.stringify(this.provider)}, ${REDACTED} }`;
  }
}

/** What the proxy's verifier adds to `ctx.auth.extra`. */
export const UPSTREAM_TOKEN_KEY = 'upstreamToken';

/**
 * The identity provider's access token for the caller: for tools that call the provider's API (GitHub,
 * Google…) as the user. Refreshed at the provider first when it expired. It never leaves the server: MCP
 * clients only ever hold the proxy's own tokens.
 *
 * Rejects with an `OAuthProxyError`: `UPSTREAM_TOKEN_UNAVAILABLE` when the request was not authenticated by
 * `oauthProxy` (no `ctx.auth`, another verifier) or the login was revoked meanwhile; `UPSTREAM_TOKEN_EXPIRED`
 * when the provider's token expired and the provider would not refresh it; `UPSTREAM_FAILED` when the
 * provider could not be reached.
 *
 * @example
 * ```ts
 * const token = await upstreamToken(ctx.auth);
 * const res = await fetch('https://api.github.com/user/repos', {
 *   headers: { authorization: `Bearer ${token.reveal()}` },
 * });
 * ```
 */
export async function upstreamToken(auth: AuthInfo | undefined): Promise<UpstreamToken> {
  const accessor = (auth?.extra as Record<string, unknown> | undefined)?.[UPSTREAM_TOKEN_KEY];
  if (typeof accessor !== 'function') {
    throw new OAuthProxyError(
      'UPSTREAM_TOKEN_UNAVAILABLE',
      'upstreamToken(): this request was not authenticated by oauthProxy (pass ctx.auth of an HTTP request)',
    );
  }
  return (accessor as () => Promise<UpstreamToken>)();
}
