// Any OpenID Connect provider by its issuer URL (Auth0, Entra ID, Keycloak, Okta, WorkOS…), found through
// discovery; Google is one with its own defaults. The user is the ID token's subject (signature, issuer,
// audience and nonce checked), or userinfo's when the provider sends no ID token.

import { describeValue, OptionIssues } from '@pier/core';
import { createRemoteJWKSet, customFetch, jwtVerify } from 'jose';
import { OAuthProxyError, optionsError } from '../errors.js';
import { checkClient, checkEndpoint, checkScopes, isSecureUrl } from './checks.js';
import {
  fetchJson,
  providerBase,
  type UpstreamContext,
  type UpstreamEndpoints,
  type UpstreamProvider,
  type UpstreamUser,
} from './provider.js';

/** Options of {@link oidc}. */
export interface OidcOptions {
  /** The provider's issuer URL, exactly as its discovery document states it. */
  readonly issuer: string;
  readonly clientId: string;
  /** Load it with `@pier/config` `secret: true`. Optional for a public client (then give the proxy a `secret`). */
  readonly clientSecret?: string;
  /** Scopes the proxy asks the provider for. Default `['openid', 'profile', 'email']`. */
  readonly scopes?: readonly string[];
  /** The claim that identifies the user (the `sub` of the proxy's tokens). Default `sub`. */
  readonly userIdClaim?: string;
  /** Added to every authorization request (`{ access_type: 'offline' }`, `{ audience: '…' }`…). */
  readonly authorizationParams?: Readonly<Record<string, string>>;
  /** Shown on the consent page. Default the issuer's host. */
  readonly name?: string;
}

/** Options of {@link google}. */
export interface GoogleOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Default `['openid', 'email', 'profile']`; add Google API scopes tools need (`https://www.googleapis.com/auth/drive.readonly`…). */
  readonly scopes?: readonly string[];
  /** Default `https://accounts.google.com` (another value for tests only). */
  readonly issuer?: string;
  /** Default `{ access_type: 'offline', prompt: 'consent' }`: Google issues refresh tokens only then. */
  readonly authorizationParams?: Readonly<Record<string, string>>;
}

/**
 * Google as the identity provider: create an OAuth client ("Web application") in the Google Cloud console
 * whose authorized redirect URI is the proxy's `callbackUrl`.
 */
export function google(options: GoogleOptions): UpstreamProvider {
  const issues = new OptionIssues('google()');
  checkClient(issues, options, true);
  issues.throwIfAny(optionsError);
  return build('google()', {
    issuer: options.issuer ?? 'https://accounts.google.com',
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scopes: options.scopes ?? ['openid', 'email', 'profile'],
    authorizationParams: options.authorizationParams ?? { access_type: 'offline', prompt: 'consent' },
    name: 'Google',
    // Google's ID tokens may name the issuer without its scheme.
    idTokenIssuers:
      options.issuer === undefined ? ['https://accounts.google.com', 'accounts.google.com'] : undefined,
  });
}

/**
 * A generic OpenID Connect provider, found by discovery (`<issuer>/.well-known/openid-configuration`).
 * Register a confidential client whose only redirect URI is the proxy's `callbackUrl`.
 */
export function oidc(options: OidcOptions): UpstreamProvider {
  return build('oidc()', options);
}

function build(
  where: string,
  options: OidcOptions & { readonly idTokenIssuers?: readonly string[] | undefined },
): UpstreamProvider {
  const issues = new OptionIssues(where);
  checkClient(issues, options, false);
  const issuer = checkEndpoint(issues, 'issuer', options?.issuer);
  if (isSecureUrl(issuer) && new URL(issuer).search !== '') issues.add('issuer must have no query string');
  const scopes = checkScopes(issues, 'scopes', options?.scopes) ?? ['openid', 'profile', 'email'];
  if (!scopes.includes('openid'))
    issues.add("scopes must include 'openid' (the user is identified by OpenID Connect)");
  const claim = options?.userIdClaim ?? 'sub';
  if (typeof claim !== 'string' || claim === '')
    issues.add(`userIdClaim must be a non-empty string (got ${describeValue(claim)})`);
  const params = options?.authorizationParams ?? {};
  if (
    params === null ||
    typeof params !== 'object' ||
    !Object.values(params).every((value) => typeof value === 'string')
  ) {
    issues.add('authorizationParams must be an object of strings');
  }
  if (options?.name !== undefined && (typeof options.name !== 'string' || options.name.trim() === '')) {
    issues.add(`name must be a non-empty string (got ${describeValue(options.name)})`);
  }
  issues.throwIfAny(optionsError);
  const name = options.name ?? new URL(issuer).host;
  let discovered: Promise<UpstreamEndpoints> | undefined;
  let keys: { readonly uri: string; readonly get: ReturnType<typeof createRemoteJWKSet> } | undefined;

  const endpoints = (context: UpstreamContext): Promise<UpstreamEndpoints> => {
    discovered ??= discover(issuer, context, name).catch((error: unknown) => {
      // A provider that was down is asked again by the next login.
      discovered = undefined;
      throw error;
    });
    return discovered;
  };

  return {
    ...providerBase(name, options.clientId, options.clientSecret),
    name,
    clientId: options.clientId,
    scopes,
    authorizationParams: { ...params },
    usesNonce: true,
    endpoints,
    async identify(tokens, context) {
      const found = await endpoints(context);
      let claims: Record<string, unknown>;
      if (tokens.idToken !== undefined && found.jwksUri !== undefined) {
        if (keys?.uri !== found.jwksUri) {
          keys = {
            uri: found.jwksUri,
            get: createRemoteJWKSet(new URL(found.jwksUri), {
              timeoutDuration: context.timeoutMs,
              [customFetch]: (url: string, init: RequestInit) => context.fetch(url, init),
            }),
          };
        }
        try {
          ({ payload: claims } = await jwtVerify(tokens.idToken, keys.get, {
            issuer: options.idTokenIssuers === undefined ? issuer : [...options.idTokenIssuers],
            audience: options.clientId,
            clockTolerance: 30,
          }));
        } catch (error) {
          throw new OAuthProxyError('UPSTREAM_FAILED', `${name}'s ID token did not verify`, { cause: error });
        }
        if (claims.nonce !== context.nonce) {
          throw new OAuthProxyError('UPSTREAM_FAILED', `${name}'s ID token is not for this login (nonce)`);
        }
      } else if (found.userinfoEndpoint !== undefined) {
        claims = await fetchJson(context, found.userinfoEndpoint, `${name}'s userinfo`, {
          authorization: `Bearer ${tokens.accessToken}`,
        });
      } else {
        throw new OAuthProxyError('UPSTREAM_FAILED', `${name} sent no ID token and has no userinfo endpoint`);
      }
      return userOf(claims, claim, name);
    },
  };
}

function userOf(claims: Record<string, unknown>, claim: string, name: string): UpstreamUser {
  const id = claims[claim];
  if ((typeof id !== 'string' && typeof id !== 'number') || String(id) === '') {
    throw new OAuthProxyError('UPSTREAM_FAILED', `${name} named no user (claim ${claim})`);
  }
  return {
    id: String(id),
    ...(typeof claims.preferred_username === 'string' && { login: claims.preferred_username }),
    ...(typeof claims.name === 'string' && { name: claims.name }),
    ...(typeof claims.email === 'string' && { email: claims.email }),
  };
}

/** OpenID Connect discovery, the document's `issuer` checked against the configured one (OIDC Discovery §4.3). */
async function discover(issuer: string, context: UpstreamContext, name: string): Promise<UpstreamEndpoints> {
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const doc = await fetchJson(context, url, `${name}'s discovery document`);
  if (doc.issuer !== issuer) {
    throw new OAuthProxyError('UPSTREAM_FAILED', `${name}'s discovery document names another issuer`);
  }
  const endpoint = (field: string, required: boolean): string | undefined => {
    const value = doc[field];
    if (value === undefined && !required) return undefined;
    if (!isSecureUrl(value)) {
      throw new OAuthProxyError('UPSTREAM_FAILED', `${name}'s discovery document has no usable ${field}`);
    }
    return value;
  };
  const methods = Array.isArray(doc.token_endpoint_auth_methods_supported)
    ? (doc.token_endpoint_auth_methods_supported as unknown[])
    : ['client_secret_basic'];
  const revocation = endpoint('revocation_endpoint', false);
  const userinfo = endpoint('userinfo_endpoint', false);
  const jwks = endpoint('jwks_uri', false);
  return {
    issuer,
    authorizationEndpoint: endpoint('authorization_endpoint', true) as string,
    tokenEndpoint: endpoint('token_endpoint', true) as string,
    ...(revocation !== undefined && { revocationEndpoint: revocation }),
    ...(userinfo !== undefined && { userinfoEndpoint: userinfo }),
    ...(jwks !== undefined && { jwksUri: jwks }),
    issParameterSupported: doc.authorization_response_iss_parameter_supported === true,
    tokenEndpointAuthMethod: methods.includes('client_secret_basic')
      ? 'client_secret_basic'
      : 'client_secret_post',
  };
}
