// RFC 7662 token introspection, for opaque tokens, with a short bounded cache.
import { createHash } from 'node:crypto';
import { describeValue, OptionIssues } from '@pier/core';
import { metadataFetcher } from './discovery.js';
import { optionsError, TokenRejectedError } from './errors.js';
import { issuerProblem, sameResource } from './urls.js';
import { scopesOf, type TokenVerifier, type VerifiedToken } from './verifier.js';

/** Options of {@link introspection}. */
export interface IntrospectionOptions {
  /** This resource server's client id at the authorization server. */
  readonly clientId: string;
  /** Its secret (sent with HTTP Basic). Load it with `@pier/config` `secret: true` so it is masked. */
  readonly clientSecret: string;
  /** The introspection endpoint. Default: `introspection_endpoint` from the first authorization server's metadata. */
  readonly endpoint?: string;
  /** How long an active answer is reused, in seconds: 0 (never) to 60, and never past the token's `exp`. Default 30. */
  readonly cacheTtlSeconds?: number;
  /** At most this many answers are cached (oldest dropped first). Default 10000. */
  readonly maxCacheEntries?: number;
  /** Require `aud` to be exactly the resource. Default `false` (the resource must be among the audiences). */
  readonly strictAudience?: boolean;
  /** Timeout of one introspection request, in milliseconds (then 503). Default 5000. */
  readonly timeoutMs?: number;
}

/**
 * Asks the authorization server about each token (RFC 7662): it must be `active`, carry the resource in
 * `aud`, an `exp`, and come from one of the plugin's authorization servers when `iss` is given. Active
 * answers are cached under the token's SHA-256 for `cacheTtlSeconds`, so a revocation takes effect within
 * that time.
 */
export function introspection(options: IntrospectionOptions): TokenVerifier {
  const issues = new OptionIssues('introspection()');
  if (typeof options?.clientId !== 'string' || options.clientId === '')
    issues.add('clientId must be a non-empty string');
  if (typeof options?.clientSecret !== 'string' || options.clientSecret === '') {
    issues.add('clientSecret must be a non-empty string');
  }
  if (options?.endpoint !== undefined && issuerProblem(options.endpoint) !== undefined) {
    issues.add(`endpoint must be an https URL (http for loopback) (got ${describeValue(options.endpoint)})`);
  }
  const ttl = options?.cacheTtlSeconds ?? 30;
  if (!Number.isInteger(ttl) || ttl < 0 || ttl > 60)
    issues.add(`cacheTtlSeconds must be an integer from 0 to 60 (got ${describeValue(ttl)})`);
  const maxEntries = options?.maxCacheEntries ?? 10_000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    issues.add(`maxCacheEntries must be a positive integer (got ${describeValue(maxEntries)})`);
  const timeoutMs = options?.timeoutMs ?? 5_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    issues.add(`timeoutMs must be a positive integer (got ${describeValue(timeoutMs)})`);
  issues.throwIfAny(optionsError);
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`;

  return {
    kind: 'introspection',
    create(settings) {
      const first = settings.authorizationServers[0] as string;
      const metadata = metadataFetcher(first, timeoutMs);
      const endpoint = async () => {
        const url = options.endpoint ?? (await metadata()).introspection_endpoint;
        if (url === undefined)
          throw new TokenRejectedError('unavailable', `${first} publishes no introspection_endpoint`);
        return url;
      };
      const cache = new Map<string, { readonly until: number; readonly token: VerifiedToken }>();
      const ask = async (token: string): Promise<Record<string, unknown>> => {
        let res: Response;
        try {
          res = await fetch(await endpoint(), {
            method: 'POST',
            headers: {
              authorization: basic,
              'content-type': 'application/x-www-form-urlencoded',
              accept: 'application/json',
            },
            body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
            signal: AbortSignal.timeout(timeoutMs),
            // Never followed (a redirect is not ok, refused below); not 'error', which Workers lack.
            redirect: 'manual',
          });
        } catch (error) {
          if (error instanceof TokenRejectedError) throw error;
          throw new TokenRejectedError('unavailable', 'The introspection endpoint could not be reached', {
            cause: error,
          });
        }
        const body = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
        if (!res.ok || body === undefined || typeof body !== 'object' || body === null) {
          throw new TokenRejectedError('unavailable', `The introspection endpoint answered ${res.status}`);
        }
        return body;
      };
      return {
        async verify(token) {
          const key = createHash('sha256').update(token).digest('base64url');
          const now = Date.now();
          const cached = cache.get(key);
          if (cached !== undefined) {
            if (cached.until > now) return cached.token;
            cache.delete(key);
          }
          const answer = await ask(token);
          const verified = check(
            answer,
            settings.authorizationServers,
            settings.resource,
            options.strictAudience === true,
          );
          const until = Math.min(now + ttl * 1000, (verified.expiresAt as number) * 1000);
          if (ttl > 0 && until > now) {
            if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
            cache.set(key, { until, token: verified });
          }
          return verified;
        },
        async probe(signal) {
          const res = await fetch(await endpoint(), {
            method: 'POST',
            headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ token: 'pier-readiness-probe' }),
            signal,
          });
          await res.body?.cancel();
          if (!res.ok) throw new Error(`the introspection endpoint answered ${res.status}`);
        },
      };
    },
  };
}

function check(
  answer: Record<string, unknown>,
  issuers: readonly string[],
  resource: string,
  strict: boolean,
): VerifiedToken {
  if (answer.active !== true) throw new TokenRejectedError('inactive', 'The access token is not active');
  const iss = answer.iss;
  if (iss !== undefined && (typeof iss !== 'string' || !issuers.includes(iss))) {
    throw new TokenRejectedError('iss', 'The access token has an unexpected issuer');
  }
  const aud = answer.aud;
  const audiences = Array.isArray(aud) ? aud : aud === undefined ? [] : [aud];
  const ours = strict
    ? audiences.length === 1 && sameResource(audiences[0], resource)
    : audiences.some((a) => sameResource(a, resource));
  if (!ours) throw new TokenRejectedError('aud', 'The access token was not issued for this resource');
  const exp = answer.exp;
  if (typeof exp !== 'number') throw new TokenRejectedError('claims', 'The access token has no expiry');
  if (exp <= Date.now() / 1000) throw new TokenRejectedError('expired', 'The access token expired');
  if (answer.cnf !== undefined) {
    throw new TokenRejectedError(
      'bound',
      'The access token is sender-constrained and cannot be used as a bearer token',
    );
  }
  const subject = typeof answer.sub === 'string' && answer.sub !== '' ? answer.sub : undefined;
  const clientId =
    typeof answer.client_id === 'string' && answer.client_id !== '' ? answer.client_id : undefined;
  if (clientId === undefined && subject === undefined) {
    throw new TokenRejectedError('claims', 'The access token names neither a subject nor a client');
  }
  return {
    clientId: clientId ?? (subject as string),
    ...(subject !== undefined && { subject }),
    ...(typeof iss === 'string' && { issuer: iss }),
    scopes: scopesOf(answer),
    expiresAt: exp,
    claims: answer,
  };
}
