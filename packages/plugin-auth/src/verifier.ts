// What every verifier gives back, and how the plugin starts one.
import type { Logger } from '@pier/core';

/** A token the verifier accepted: who is calling and what they may do. */
export interface VerifiedToken {
  /** The OAuth client the token was issued to (`client_id`, or `azp`). */
  readonly clientId: string;
  /** The end user (`sub`); absent for a client acting on its own behalf without one. */
  readonly subject?: string;
  /** The authorization server that issued the token (`iss`). */
  readonly issuer?: string;
  /** Granted scopes, as the token says (the scope hierarchy is applied when scopes are checked). */
  readonly scopes: readonly string[];
  /** Expiry, in seconds since the epoch. */
  readonly expiresAt?: number;
  /** Every claim of the token (or of the introspection answer). */
  readonly claims: Readonly<Record<string, unknown>>;
  /**
   * More for handlers, added to `ctx.auth.extra` beside `subject`, `issuer`, `claims` and `principal`
   * (which it cannot replace): what a verifier knows of the caller beyond the token's claims, such as an
   * accessor for a credential kept server-side. Never put a secret's value here as a plain string.
   */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** What a verifier is told by the plugin it serves. */
export interface VerifierSettings {
  /** The canonical resource URL: the audience every token must carry. */
  readonly resource: string;
  /** The plugin's `authorizationServers`: the issuers tokens may come from. */
  readonly authorizationServers: readonly string[];
  /** The plugin's logger (set once the plugin is set up). */
  readonly logger: () => Logger | undefined;
}

/** A running verifier. */
export interface ActiveVerifier {
  /** Resolves with the token's facts, or rejects with a `TokenRejectedError`. */
  verify(token: string): Promise<VerifiedToken>;
  /**
   * The token's facts when they are known without waiting (a verified-token cache hit whose key set cannot
   * have changed since), else `undefined` and the plugin calls {@link verify}. Never throws. It may be
   * asked before the token's syntax is checked: answer only for a token that {@link verify} accepted.
   */
  cached?(token: string): VerifiedToken | undefined;
  /** Throws when what verification depends on (key set, introspection endpoint) cannot be reached. */
  probe?(signal: AbortSignal): Promise<void>;
}

/**
 * How tokens are checked: `jwt()`, `introspection()`, `staticTokens()` or `custom()`. The plugin calls
 * `create` once, with its own settings.
 */
export interface TokenVerifier {
  readonly kind: string;
  create(settings: VerifierSettings): ActiveVerifier;
}

/** Scopes from `scope` (space-separated string, RFC 9068/7662) or `scp` (array, some identity providers). */
export function scopesOf(claims: Readonly<Record<string, unknown>>): string[] {
  const { scope, scp } = claims;
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === 'string' && s !== '');
  if (typeof scp === 'string') return scp.split(' ').filter((s) => s !== '');
  return [];
}
