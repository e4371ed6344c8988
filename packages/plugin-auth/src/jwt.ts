// JWT access tokens (RFC 9068) checked against the issuer's published keys, with jose.
import { describeValue, OptionIssues } from '@pier/core';
import {
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  errors,
  type JWTHeaderParameters,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import { metadataFetcher } from './discovery.js';
import { optionsError, TokenRejectedError } from './errors.js';
import { issuerProblem, sameResource } from './urls.js';
import { scopesOf, type TokenVerifier, type VerifiedToken } from './verifier.js';

/** Options of {@link jwt}. */
export interface JwtOptions {
  /** Asymmetric algorithms accepted. Default: RS256/384/512, PS256/384/512, ES256/384/512, EdDSA. */
  readonly algorithms?: readonly string[];
  /**
   * Accept a `typ` header of `JWT` (or none) besides RFC 9068's `at+jwt`, for identity providers that do
   * not follow RFC 9068 (Entra ID, Auth0, Cognito). The audience check still stops ID tokens. Default `false`.
   */
  readonly allowJwtTyp?: boolean;
  /** Leeway for `exp`, `nbf` and `iat`, in seconds: 0–60. Default 5. */
  readonly clockToleranceSeconds?: number;
  /** Require `aud` to be exactly the resource (a single audience), not merely to contain it. Default `false`. */
  readonly strictAudience?: boolean;
  /** The key set's URL, skipping discovery. Only with a single authorization server. */
  readonly jwksUri?: string;
  /**
   * The keys themselves, instead of a key set fetched over HTTP: a function jose calls with each token's
   * protected header, resolving the public key for its `kid` (or throwing jose's `JWKSNoMatchingKey`).
   * For an authorization server running in the same process, such as `@pier/oauth-proxy`. It should
   * resolve the same key object for the same `kid`: the verified-token cache checks that. Only with a
   * single authorization server, and not with `jwksUri`.
   */
  readonly keys?: JWTVerifyGetKey;
  /** An unknown `kid` refetches the key set at most once per this many milliseconds. Default 30000. */
  readonly cooldownMs?: number;
  /** How long a key set is used before it is fetched again, in milliseconds. Default 600000. */
  readonly cacheMaxAgeMs?: number;
  /** Timeout of a metadata or key set fetch, in milliseconds (then 503). Default 5000. */
  readonly timeoutMs?: number;
  /**
   * How many verified tokens to remember (in memory, never logged), each until its `exp` at most, so that
   * a client's next request skips the signature check. An entry counts only while the key that verified it is still
   * the one the key set gives for its `kid`: a key set refetch (rotation, or `cacheMaxAgeMs`) re-verifies.
   * `0` turns it off. Default 1000.
   */
  readonly cacheTokens?: number;
}

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/**
 * Verifies JWT access tokens: signature by a key the issuer publishes (found through its metadata), an
 * allowed algorithm, `typ: at+jwt`, exact `iss` among the plugin's authorization servers, the resource in
 * `aud`, `exp` present and not past, `nbf`/`iat` not in the future, `sub` or `client_id`, and no `cnf`
 * (a DPoP- or certificate-bound token is not a bearer token).
 */
export function jwt(options: JwtOptions = {}): TokenVerifier {
  const issues = new OptionIssues('jwt()');
  const algorithms = options.algorithms ?? ASYMMETRIC;
  if (
    !Array.isArray(algorithms) ||
    algorithms.length === 0 ||
    !algorithms.every((a) => ASYMMETRIC.includes(a))
  ) {
    issues.add(
      `algorithms must be a non-empty list of ${ASYMMETRIC.join(', ')} (got ${describeValue(algorithms)})`,
    );
  }
  const tolerance = options.clockToleranceSeconds ?? 5;
  if (!Number.isInteger(tolerance) || tolerance < 0 || tolerance > 60) {
    issues.add(`clockToleranceSeconds must be an integer from 0 to 60 (got ${describeValue(tolerance)})`);
  }
  const cacheTokens = options.cacheTokens ?? 1000;
  if (!Number.isInteger(cacheTokens) || cacheTokens < 0) {
    issues.add(`cacheTokens must be an integer ≥ 0 (got ${describeValue(cacheTokens)})`);
  }
  for (const key of ['cooldownMs', 'cacheMaxAgeMs', 'timeoutMs'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
      issues.add(`${key} must be a positive integer (got ${describeValue(value)})`);
    }
  }
  if (options.jwksUri !== undefined && issuerProblem(options.jwksUri) !== undefined) {
    issues.add(`jwksUri must be an https URL (http for loopback) (got ${describeValue(options.jwksUri)})`);
  }
  if (options.keys !== undefined && typeof options.keys !== 'function') {
    issues.add(`keys must be a function (protectedHeader) => key (got ${describeValue(options.keys)})`);
  }
  if (options.keys !== undefined && options.jwksUri !== undefined)
    issues.add('give keys or jwksUri, not both');
  issues.throwIfAny(optionsError);
  const timeoutMs = options.timeoutMs ?? 5_000;

  return {
    kind: 'jwt',
    create(settings) {
      const own = options.jwksUri !== undefined ? 'jwksUri' : options.keys !== undefined ? 'keys' : undefined;
      if (own !== undefined && settings.authorizationServers.length !== 1) {
        const issues = new OptionIssues('jwt()');
        issues.add(`${own} can be given only with a single authorization server`);
        issues.throwIfAny(optionsError);
      }
      const localKeys = options.keys;
      const keySets = new Map(
        settings.authorizationServers.map((issuer) => {
          const metadata = metadataFetcher(issuer, timeoutMs);
          let keys: KeySet | undefined = localKeys;
          const keySet = async (): Promise<KeySet> => {
            if (keys !== undefined) return keys;
            const uri = options.jwksUri ?? (await metadata()).jwks_uri;
            if (uri === undefined || issuerProblem(uri) !== undefined) {
              throw new TokenRejectedError('unavailable', `the metadata of ${issuer} has no usable jwks_uri`);
            }
            keys = createRemoteJWKSet(new URL(uri), {
              cooldownDuration: options.cooldownMs ?? 30_000,
              cacheMaxAge: options.cacheMaxAgeMs ?? 600_000,
              timeoutDuration: timeoutMs,
              // Each fetch may replace keys: cached tokens then go back through the key set once.
              [customFetch]: (url: string, init: RequestInit) => {
                fetches += 1;
                return fetch(url, init);
              },
            });
            return keys;
          };
          return [issuer, { keySet, uri: async () => options.jwksUri ?? (await metadata()).jwks_uri }];
        }),
      );

      /** Key set fetches so far (any issuer): a cached token checked at an older count is checked again. */
      let fetches = 0;
      /**
       * Verified tokens: the result, the token itself, the key that verified it, and until when (ms). Keyed
       * by the token's last {@link KEY_CHARS} characters (part of its signature), and a hit counts only when
       * the whole token is the same: a lookup hashes a few characters, not the whole ~1 KB token, and costs
       * no hash object (a SHA-256 per request was most of a cache hit's time and garbage).
       */
      const verified = new Map<string, CachedToken>();
      const remember = (entry: CachedToken) => {
        if (cacheTokens === 0) return;
        const key = keyOf(entry.token);
        if (!verified.delete(key) && verified.size >= cacheTokens) {
          verified.delete(verified.keys().next().value as string);
        }
        verified.set(key, entry);
      };
      const lookup = (token: string): CachedToken | undefined => {
        if (cacheTokens === 0) return undefined;
        const hit = verified.get(keyOf(token));
        return hit !== undefined && hit.token === token ? hit : undefined;
      };

      return {
        cached(token) {
          const hit = lookup(token);
          // Only while no key set was fetched since the token was checked and its set is within its max
          // age (else `verify` asks the key set, which refetches a stale one, and compares the key).
          if (hit === undefined || Date.now() >= hit.until || hit.checkedAt !== fetches || !hit.keys.fresh) {
            return undefined;
          }
          return hit.result;
        },
        async verify(token) {
          const hit = lookup(token);
          if (hit !== undefined) {
            if (Date.now() < hit.until && (await stillKeyOf(hit))) {
              hit.checkedAt = fetches;
              return hit.result;
            }
            verified.delete(keyOf(token));
          }
          let unverified: JWTPayload;
          try {
            unverified = decodeJwt(token);
          } catch {
            throw new TokenRejectedError('malformed', 'The access token is not a JWT');
          }
          const issuer = typeof unverified.iss === 'string' ? unverified.iss : undefined;
          const source = issuer === undefined ? undefined : keySets.get(issuer);
          if (issuer === undefined || source === undefined) {
            throw new TokenRejectedError(
              'iss',
              'The access token was not issued by a trusted authorization server',
            );
          }
          const keys = await source.keySet();
          let payload: JWTPayload;
          let header: JWTHeaderParameters;
          let key: unknown;
          try {
            const result = await jwtVerify(token, keys, {
              issuer,
              algorithms: [...algorithms],
              clockTolerance: tolerance,
              requiredClaims: ['exp'],
              ...(!options.allowJwtTyp && { typ: 'at+jwt' }),
            });
            if (options.allowJwtTyp) checkLooseTyp(result.protectedHeader.typ);
            payload = result.payload;
            header = result.protectedHeader;
            key = result.key;
          } catch (error) {
            throw rejection(error);
          }
          const result = checkClaims(
            payload,
            issuer,
            settings.resource,
            tolerance,
            options.strictAudience === true,
          );
          if (typeof payload.exp === 'number') {
            remember({ token, result, keys, header, key, until: payload.exp * 1000, checkedAt: fetches });
          }
          return result;
        },
        async probe(signal) {
          // Keys held in this process are always within reach.
          if (localKeys !== undefined) return;
          for (const [issuer, source] of keySets) {
            const uri = await source.uri();
            if (uri === undefined) throw new Error(`the metadata of ${issuer} has no jwks_uri`);
            const res = await fetch(uri, { signal });
            const body = (await res.json().catch(() => undefined)) as { keys?: unknown } | undefined;
            if (!res.ok || !Array.isArray(body?.keys))
              throw new Error(`the key set of ${issuer} answered ${res.status}`);
          }
        },
      };
    },
  };
}

/** How many of a token's last characters key the verified-token cache (a signature has 43 or more). */
const KEY_CHARS = 32;

function keyOf(token: string): string {
  return token.length <= KEY_CHARS ? token : token.slice(-KEY_CHARS);
}

/** A remote key set (with its `fresh` flag), or the keys of an authorization server in this process. */
type KeySet = JWTVerifyGetKey & { readonly fresh?: boolean };

interface CachedToken {
  /** The whole token: a token that only ends the same is another token. */
  readonly token: string;
  readonly result: VerifiedToken;
  readonly keys: KeySet;
  readonly header: JWTHeaderParameters;
  readonly key: unknown;
  readonly until: number;
  /** The key set fetch count when the key was last found to be the set's. */
  checkedAt: number;
}

/**
 * Whether the key set still gives, for the cached token's header, the very key that verified it. A refetched
 * key set imports its keys anew, so any refetch (a rotation, an unknown kid, the set's max age) sends the
 * token through a full verification again; a kid gone from the set fails here too.
 */
async function stillKeyOf(entry: CachedToken): Promise<boolean> {
  try {
    return (await entry.keys(entry.header, undefined as never)) === entry.key;
  } catch {
    return false;
  }
}

function checkLooseTyp(typ: unknown): void {
  if (typ === undefined) return;
  const normalized = String(typ)
    .toLowerCase()
    .replace(/^application\//, '');
  if (normalized !== 'at+jwt' && normalized !== 'jwt') {
    throw new TokenRejectedError('typ', 'The access token has an unexpected type');
  }
}

function checkClaims(
  payload: JWTPayload,
  issuer: string,
  resource: string,
  tolerance: number,
  strict: boolean,
): VerifiedToken {
  const aud = payload.aud;
  const audiences = Array.isArray(aud) ? aud : aud === undefined ? [] : [aud];
  const ours = strict
    ? audiences.length === 1 && sameResource(audiences[0], resource)
    : audiences.some((a) => sameResource(a, resource));
  if (!ours) throw new TokenRejectedError('aud', 'The access token was not issued for this resource');
  if (payload.cnf !== undefined) {
    throw new TokenRejectedError(
      'bound',
      'The access token is sender-constrained and cannot be used as a bearer token',
    );
  }
  if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + tolerance) {
    throw new TokenRejectedError('not_yet_valid', 'The access token was issued in the future');
  }
  const claims = payload as Record<string, unknown>;
  const subject = typeof payload.sub === 'string' && payload.sub !== '' ? payload.sub : undefined;
  const clientId = [claims.client_id, claims.azp].find((v): v is string => typeof v === 'string' && v !== '');
  if (clientId === undefined && subject === undefined) {
    throw new TokenRejectedError('claims', 'The access token names neither a subject nor a client');
  }
  return {
    clientId: clientId ?? (subject as string),
    ...(subject !== undefined && { subject }),
    issuer,
    scopes: scopesOf(claims),
    ...(typeof payload.exp === 'number' && { expiresAt: payload.exp }),
    claims,
  };
}

/** jose's error, as a rejection with a reason code (the key set out of reach is not the token's fault). */
function rejection(error: unknown): TokenRejectedError {
  if (error instanceof TokenRejectedError) return error;
  if (!(error instanceof errors.JOSEError)) {
    return new TokenRejectedError('unavailable', 'The key set could not be fetched', { cause: error });
  }
  switch (error.code) {
    case 'ERR_JWT_EXPIRED':
      return new TokenRejectedError('expired', 'The access token expired');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const claim = (error as errors.JWTClaimValidationFailed).claim;
      if (claim === 'iss') return new TokenRejectedError('iss', 'The access token has an unexpected issuer');
      if (claim === 'typ') return new TokenRejectedError('typ', 'The access token has an unexpected type');
      if (claim === 'nbf')
        return new TokenRejectedError('not_yet_valid', 'The access token is not valid yet');
      return new TokenRejectedError('claims', `The access token's ${claim} claim is missing or invalid`);
    }
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return new TokenRejectedError('sig', 'The access token signature is invalid');
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return new TokenRejectedError(
        'alg',
        'The access token is signed with an algorithm that is not allowed',
      );
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return new TokenRejectedError('kid', 'The access token is signed with an unknown key');
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
      return new TokenRejectedError('unavailable', 'The key set could not be fetched', { cause: error });
    default:
      return new TokenRejectedError('malformed', 'The access token is malformed');
  }
}
