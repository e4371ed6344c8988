// What MCP clients discover: the authorization server metadata (RFC 8414), the same document at the OpenID
// Connect discovery address for clients that only look there, and the key set.
import type { ProxyContext } from './context.js';
import { SIGNING_ALG } from './keys.js';
import { OPEN_CORS } from './web.js';

const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'];

/** The RFC 8414 document. */
export function authorizationServerMetadata(proxy: ProxyContext): Record<string, unknown> {
  const { settings, urls } = proxy;
  return {
    issuer: settings.issuer,
    authorization_endpoint: urls.authorize,
    token_endpoint: urls.token,
    ...(settings.dynamicRegistration && { registration_endpoint: urls.register }),
    revocation_endpoint: urls.revoke,
    jwks_uri: urls.jwks,
    scopes_supported: settings.scopes,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    ...(settings.documents !== undefined && { client_id_metadata_document_supported: true }),
  };
}

/**
 * The answer of both discovery addresses. The OpenID Connect copy carries the fields OpenID discovery
 * requires; the proxy issues no ID tokens (an `openid` scope is refused as unknown).
 */
export function metadataHandler(proxy: ProxyContext, openid: boolean): () => Promise<Response> {
  let body: Record<string, unknown> | undefined;
  return async () => {
    body ??= {
      ...authorizationServerMetadata(proxy),
      ...(openid && {
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: [SIGNING_ALG],
      }),
    };
    return published(body, 'application/json', 3600);
  };
}

/** The key set: the keys that sign tokens now, next period and (while its tokens live) last period. */
export function jwksHandler(proxy: ProxyContext): () => Promise<Response> {
  // Cached for less than a rotation period: the next key is published one period ahead.
  const maxAge = Math.min(300, Math.floor(proxy.settings.rotationMs / 1000));
  return async () => published(await proxy.keys.jwks(), 'application/jwk-set+json', maxAge);
}

/** A public, cacheable JSON document any origin may read. */
function published(body: unknown, type: string, maxAge: number): Response {
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'content-type': type, 'cache-control': `public, max-age=${maxAge}`, ...OPEN_CORS },
  });
}
