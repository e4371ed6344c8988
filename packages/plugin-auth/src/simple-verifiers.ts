// Verifiers for development and for everything else: fixed tokens, and your own function.
import { createHash, timingSafeEqual } from 'node:crypto';
import { describeValue, OptionIssues } from '@pier/core';
import { optionsError, TokenRejectedError } from './errors.js';
import type { TokenVerifier, VerifiedToken } from './verifier.js';

/** One token of {@link staticTokens}. */
export interface StaticToken {
  /** The token itself, at least 16 characters. Load it with `@pier/config` `secret: true`. */
  readonly token: string;
  readonly clientId: string;
  readonly subject?: string;
  readonly scopes?: readonly string[];
}

/**
 * Fixed tokens, for development and machine API keys: compared in constant time (SHA-256 digests, every
 * entry compared), accepted from the `Authorization` header only, never expiring. Not for production
 * users: there is no expiry, rotation or revocation but a restart.
 */
export function staticTokens(tokens: readonly StaticToken[]): TokenVerifier {
  const issues = new OptionIssues('staticTokens()');
  if (!Array.isArray(tokens) || tokens.length === 0)
    issues.add('expects a non-empty array of { token, clientId, scopes? }');
  const entries = (Array.isArray(tokens) ? tokens : []).map((entry, i) => {
    if (typeof entry?.token !== 'string' || entry.token.length < 16 || !/^[\x21-\x7E]+$/.test(entry.token)) {
      issues.add(`[${i}].token must be at least 16 printable characters without spaces`);
    }
    if (typeof entry?.clientId !== 'string' || entry.clientId === '') {
      issues.add(`[${i}].clientId must be a non-empty string (got ${describeValue(entry?.clientId)})`);
    }
    if (
      entry?.scopes !== undefined &&
      (!Array.isArray(entry.scopes) || !entry.scopes.every((s: unknown) => typeof s === 'string'))
    ) {
      issues.add(`[${i}].scopes must be an array of strings`);
    }
    return {
      digest: createHash('sha256').update(String(entry?.token)).digest(),
      verified: Object.freeze({
        clientId: entry?.clientId,
        ...(entry?.subject !== undefined && { subject: entry.subject }),
        scopes: Object.freeze([...(entry?.scopes ?? [])]),
        claims: Object.freeze({
          client_id: entry?.clientId,
          ...(entry?.subject !== undefined && { sub: entry.subject }),
        }),
      }) as VerifiedToken,
    };
  });
  issues.throwIfAny(optionsError);
  return {
    kind: 'static',
    create() {
      return {
        async verify(token) {
          const digest = createHash('sha256').update(token).digest();
          let found: VerifiedToken | undefined;
          for (const entry of entries) {
            // Every entry is compared, so the time taken says nothing about which one matched.
            if (timingSafeEqual(digest, entry.digest) && found === undefined) found = entry.verified;
          }
          if (found === undefined)
            throw new TokenRejectedError('unknown', 'The access token is not recognized');
          return found;
        },
      };
    },
  };
}

/**
 * Your own check: resolve with the token's facts, or `undefined` to refuse it (401 `invalid_token`).
 * Throw a `TokenRejectedError` to choose the reason (`unavailable` answers 503); anything else thrown is a
 * 500. The audience is yours to check: the token must have been issued for this resource.
 */
export function custom(
  verify: (token: string) => VerifiedToken | undefined | Promise<VerifiedToken | undefined>,
): TokenVerifier {
  if (typeof verify !== 'function') {
    const issues = new OptionIssues('custom()');
    issues.add(`expects a function (token) => VerifiedToken | undefined (got ${describeValue(verify)})`);
    issues.throwIfAny(optionsError);
  }
  return {
    kind: 'custom',
    create() {
      return {
        async verify(token) {
          const verified = await verify(token);
          if (verified === undefined)
            throw new TokenRejectedError('unknown', 'The access token is not recognized');
          if (typeof verified?.clientId !== 'string' || !Array.isArray(verified.scopes)) {
            throw new Error('custom(): the verifier must resolve { clientId, scopes, claims } or undefined');
          }
          return verified;
        },
      };
    },
  };
}
