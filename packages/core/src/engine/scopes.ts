// Scopes a tool, prompt or resource declares (`scopes: ['notes:read']`), checked by the engine before a
// request that names one reaches any middleware: a caller whose token lacks them gets 403
// `insufficient_scope` over HTTP, before any handler runs, with the scopes to ask for. A resource
// template's scopes guard its reads, its completions and its subscriptions alike. Only an authenticated request is checked: without an
// authenticator (stdio, open HTTP) there is no one to challenge.
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
} from '@modelcontextprotocol/server';
import { RequestRefusedError } from '../errors.js';
import type { HttpAuthenticator, ScopeChallenge } from '../plugins/api.js';
import { ErrorCode } from './wire.js';

/**
 * The challenge for a caller lacking `required`: the authenticator's decision (`scopeChallenge`), or by
 * default every required scope among the token's. `undefined` when the caller may go on.
 */
export function scopeChallenge(
  authenticator: HttpAuthenticator | undefined,
  required: readonly string[] | undefined,
  auth: AuthInfo | undefined,
): ScopeChallenge | undefined {
  if (required === undefined || required.length === 0 || auth === undefined) return undefined;
  const decide = authenticator?.scopeChallenge;
  if (decide !== undefined) return decide.call(authenticator, required, auth);
  const granted = new Set(auth.scopes);
  return required.every((scope) => granted.has(scope))
    ? undefined
    : { scopes: required as [string, ...string[]] };
}

/** The 403 `insufficient_scope` refusal: the SDK's own challenge header and OAuth error body. */
export async function insufficientScope(
  challenge: ScopeChallenge,
  auth: AuthInfo,
): Promise<RequestRefusedError> {
  const description = challenge.errorDescription ?? 'Insufficient scope';
  const metadataUrl = resourceMetadataUrl(auth);
  const response = bearerAuthChallengeResponse(
    new OAuthError(OAuthErrorCode.InsufficientScope, description),
    {
      requiredScopes: [...challenge.scopes],
      ...(metadataUrl !== undefined && { resourceMetadataUrl: metadataUrl }),
    },
  );
  const body: unknown = await response.json();
  return new RequestRefusedError(`Forbidden: insufficient scope (needs ${challenge.scopes.join(' ')})`, {
    rpcCode: ErrorCode.InvalidRequest,
    data: { requiredScopes: [...challenge.scopes] },
    http: {
      status: response.status,
      headers: {
        'www-authenticate': response.headers.get('www-authenticate') ?? 'Bearer error="insufficient_scope"',
        'cache-control': 'no-store',
      },
      body,
    },
  });
}

/** Where the caller learns about this resource server (RFC 9728), as the SDK derives it. */
function resourceMetadataUrl(auth: AuthInfo): string | undefined {
  if (auth.resourceMetadataUrl !== undefined) return auth.resourceMetadataUrl;
  const resource = auth.resource;
  if (resource?.protocol === 'https:' || resource?.protocol === 'http:') {
    return getOAuthProtectedResourceMetadataUrl(resource);
  }
  return undefined;
}
