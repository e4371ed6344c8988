// What handlers see of the caller (ctx.auth): the SDK's AuthInfo, with the token itself held back.
import type { AuthInfo } from '@pier/core';
import type { VerifiedToken } from './verifier.js';

/** Stands where the SDK's `AuthInfo.token` would hold the raw token: Pier never passes tokens through. */
export const REDACTED_TOKEN = '[redacted: see unsafeRawToken()]';

const RAW = Symbol('pier.auth.rawToken');

/** Holds the token where neither `JSON.stringify` nor `util.inspect` can see it (a private field). */
class HeldToken {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  get value(): string {
    return this.#value;
  }
  toJSON(): string {
    return '[redacted]';
  }
}

/** What `@pier/plugin-auth` puts in `ctx.auth.extra`. */
export interface AuthDetails {
  /** The end user (`sub`), when the token names one. */
  readonly subject: string | undefined;
  /** The issuing authorization server (`iss`), when known. */
  readonly issuer: string | undefined;
  /** Every claim of the token (or of the introspection answer). */
  readonly claims: Readonly<Record<string, unknown>>;
  /** A stable key for the caller (issuer, subject, client): what sessions and request states are bound to. */
  readonly principal: string;
}

/**
 * Builds `ctx.auth` from a verified token: frozen (with its `scopes` and `extra`), since the same object
 * serves every request that presents the token while its verification is remembered.
 */
export function toAuthInfo(
  token: string,
  verified: VerifiedToken,
  resource: URL,
  resourceMetadataUrl: string,
): AuthInfo {
  const details: AuthDetails = Object.freeze({
    ...verified.extra,
    subject: verified.subject,
    issuer: verified.issuer,
    claims: verified.claims,
    principal: principalKey(verified),
  });
  return Object.freeze({
    token: REDACTED_TOKEN,
    clientId: verified.clientId,
    scopes: Object.freeze([...verified.scopes]),
    ...(verified.expiresAt !== undefined && { expiresAt: verified.expiresAt }),
    resource,
    resourceMetadataUrl,
    extra: details as unknown as Record<string, unknown>,
    [RAW]: new HeldToken(token),
  }) as unknown as AuthInfo;
}

/**
 * `ctx.auth` for a verified token, built once per verification result: a verifier that remembers tokens
 * gives the same result for the same token, so a request that hits its cache allocates nothing here.
 */
export class AuthInfos {
  readonly #built = new WeakMap<VerifiedToken, { readonly token: string; readonly authInfo: AuthInfo }>();
  readonly #resource: URL;
  readonly #resourceMetadataUrl: string;

  constructor(resource: URL, resourceMetadataUrl: string) {
    this.#resource = resource;
    this.#resourceMetadataUrl = resourceMetadataUrl;
  }

  of(token: string, verified: VerifiedToken): AuthInfo {
    const built = this.#built.get(verified);
    // The same result for another token (a custom verifier may share one) gets its own AuthInfo.
    if (built !== undefined && built.token === token) return built.authInfo;
    const authInfo = toAuthInfo(token, verified, this.#resource, this.#resourceMetadataUrl);
    this.#built.set(verified, { token, authInfo });
    return authInfo;
  }
}

/** Issuer, subject and client: the same user through the same client keeps one key across refreshed tokens. */
export function principalKey(verified: Pick<VerifiedToken, 'issuer' | 'subject' | 'clientId'>): string {
  return JSON.stringify([verified.issuer ?? null, verified.subject ?? null, verified.clientId]);
}

/** `ctx.auth.extra` as {@link AuthDetails}, or `undefined` when the caller was not authenticated by this plugin. */
export function authDetails(auth: AuthInfo | undefined): AuthDetails | undefined {
  const extra = auth?.extra as Partial<AuthDetails> | undefined;
  return typeof extra?.principal === 'string' ? (extra as AuthDetails) : undefined;
}

/**
 * The raw access token of the request. **Unsafe:** the MCP spec forbids passing it to another service
 * (it was issued for this server only). Call a downstream API with its own credentials, or exchange the
 * token (RFC 8693) for one issued for that API. `undefined` when the caller was not authenticated here.
 */
export function unsafeRawToken(auth: AuthInfo | undefined): string | undefined {
  const held = (auth as { [RAW]?: unknown } | undefined)?.[RAW];
  return held instanceof HeldToken ? held.value : undefined;
}
