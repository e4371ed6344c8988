// The identity provider behind the proxy, as the proxy sees it, and the OAuth 2.0 client calls the proxy
// makes to it (authorization URL, code exchange, refresh, revocation): one confidential client with one
// callback URL, its own PKCE and state.
import { OAuthProxyError } from '../errors.js';

/** Where the provider's endpoints are, once known (fixed for GitHub, discovered for OpenID Connect). */
export interface UpstreamEndpoints {
  /** The OpenID Connect issuer: `iss` of ID tokens and of authorization responses (RFC 9207). */
  readonly issuer?: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly revocationEndpoint?: string;
  readonly userinfoEndpoint?: string;
  readonly jwksUri?: string;
  /** The provider promises `iss` in its authorization responses (RFC 9207): one without it is refused. */
  readonly issParameterSupported: boolean;
  /** How the proxy authenticates at the token endpoint. */
  readonly tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post' | 'none';
}

/** Who logged in, as the provider says. `id` becomes the `sub` of the proxy's tokens. */
export interface UpstreamUser {
  readonly id: string;
  readonly login?: string;
  readonly name?: string;
  readonly email?: string;
}

/** The provider's tokens for one user, kept server-side (sealed in the store), never sent to MCP clients. */
export interface UpstreamTokens {
  readonly accessToken: string;
  readonly tokenType: string;
  readonly refreshToken?: string;
  /** Milliseconds since the epoch; absent when the provider did not say (GitHub OAuth Apps never expire). */
  readonly expiresAt?: number;
  /** When the provider issued them (milliseconds since the epoch). */
  readonly obtainedAt: number;
  readonly scopes: readonly string[];
  readonly idToken?: string;
}

/** What provider calls are made with. */
export interface UpstreamContext {
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
}

/** Holds the client secret out of reach of `JSON.stringify`, `util.inspect` and `String`. */
export const CLIENT_SECRET: unique symbol = Symbol('pier.oauth-proxy.clientSecret');

/**
 * An identity provider the proxy logs users in with: made by {@link github}, {@link google} or {@link oidc}
 * (`./github.ts`, `./oidc.ts`). It is one ordinary OAuth client of that provider.
 */
export interface UpstreamProvider {
  /** Shown on the consent page: "GitHub", "Google", or the issuer's host. */
  readonly name: string;
  readonly clientId: string;
  /** What the proxy asks the provider for (the provider's own scopes, not the MCP server's). */
  readonly scopes: readonly string[];
  /** Added to every authorization request (Google's `access_type=offline`…). */
  readonly authorizationParams: Readonly<Record<string, string>>;
  /** Whether the provider checks a `nonce` in an ID token (OpenID Connect). */
  readonly usesNonce: boolean;
  /** The endpoints (discovered once for OpenID Connect). */
  endpoints(context: UpstreamContext): Promise<UpstreamEndpoints>;
  /** Who the tokens belong to (GitHub's user API; an OpenID Connect ID token or userinfo). */
  identify(
    tokens: UpstreamTokens,
    context: UpstreamContext & { readonly nonce: string },
  ): Promise<UpstreamUser>;
  /** The client secret (never printed: see `toJSON`). */
  readonly [CLIENT_SECRET]: () => string | undefined;
}

/** Properties every provider object shares: the secret behind a symbol, and a safe JSON form. */
export function providerBase(name: string, clientId: string, clientSecret: string | undefined) {
  return {
    [CLIENT_SECRET]: () => clientSecret,
    toJSON: () => ({ name, clientId, clientSecret: clientSecret === undefined ? undefined : '[redacted]' }),
  };
}

/** The provider's authorization URL for one login. */
export function authorizationUrl(
  provider: UpstreamProvider,
  endpoints: UpstreamEndpoints,
  login: {
    readonly state: string;
    readonly challenge: string;
    readonly nonce: string;
    readonly redirectUri: string;
  },
): string {
  const url = new URL(endpoints.authorizationEndpoint);
  const params = url.searchParams;
  for (const [name, value] of Object.entries(provider.authorizationParams)) params.set(name, value);
  params.set('response_type', 'code');
  params.set('client_id', provider.clientId);
  params.set('redirect_uri', login.redirectUri);
  if (provider.scopes.length > 0) params.set('scope', provider.scopes.join(' '));
  params.set('state', login.state);
  params.set('code_challenge', login.challenge);
  params.set('code_challenge_method', 'S256');
  if (provider.usesNonce) params.set('nonce', login.nonce);
  return url.href;
}

/** Exchanges the provider's authorization code (with the proxy's PKCE verifier). */
export function exchangeCode(
  provider: UpstreamProvider,
  endpoints: UpstreamEndpoints,
  context: UpstreamContext,
  exchange: { readonly code: string; readonly verifier: string; readonly redirectUri: string },
): Promise<UpstreamTokens> {
  return tokenRequest(provider, endpoints, context, {
    grant_type: 'authorization_code',
    code: exchange.code,
    code_verifier: exchange.verifier,
    redirect_uri: exchange.redirectUri,
  });
}

/** Refreshes the provider's tokens; the refresh token is kept when the provider does not rotate it. */
export async function refreshTokens(
  provider: UpstreamProvider,
  endpoints: UpstreamEndpoints,
  context: UpstreamContext,
  current: UpstreamTokens,
): Promise<UpstreamTokens> {
  if (current.refreshToken === undefined) {
    throw new OAuthProxyError('UPSTREAM_TOKEN_EXPIRED', `${provider.name} gave no refresh token`, {
      upstreamError: 'invalid_grant',
    });
  }
  const fresh = await tokenRequest(provider, endpoints, context, {
    grant_type: 'refresh_token',
    refresh_token: current.refreshToken,
  });
  return {
    ...fresh,
    ...(fresh.refreshToken === undefined && { refreshToken: current.refreshToken }),
    ...(fresh.scopes.length === 0 && { scopes: current.scopes }),
  };
}

/** Asks the provider to revoke a token (RFC 7009), best effort: `false` when it could not. */
export async function revokeUpstream(
  provider: UpstreamProvider,
  endpoints: UpstreamEndpoints,
  context: UpstreamContext,
  token: string,
  hint: 'access_token' | 'refresh_token',
): Promise<boolean> {
  if (endpoints.revocationEndpoint === undefined) return false;
  const body = new URLSearchParams({ token, token_type_hint: hint });
  const headers = authenticate(provider, endpoints, body);
  try {
    const res = await context.fetch(endpoints.revocationEndpoint, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(context.timeoutMs),
    });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** GET a JSON document from the provider (discovery, user API, userinfo). */
export async function fetchJson(
  context: UpstreamContext,
  url: string,
  what: string,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await context.fetch(url, {
      headers: { accept: 'application/json', ...headers },
      redirect: 'manual',
      signal: AbortSignal.timeout(context.timeoutMs),
    });
  } catch (error) {
    throw new OAuthProxyError('UPSTREAM_FAILED', `${what}: ${describeFailure(error)}`, { cause: error });
  }
  const body = await res.json().catch(() => undefined);
  if (!res.ok || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new OAuthProxyError('UPSTREAM_FAILED', `${what} answered ${res.status}`);
  }
  return body as Record<string, unknown>;
}

async function tokenRequest(
  provider: UpstreamProvider,
  endpoints: UpstreamEndpoints,
  context: UpstreamContext,
  params: Record<string, string>,
): Promise<UpstreamTokens> {
  const body = new URLSearchParams(params);
  const headers = authenticate(provider, endpoints, body);
  let res: Response;
  try {
    res = await context.fetch(endpoints.tokenEndpoint, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(context.timeoutMs),
    });
  } catch (error) {
    throw new OAuthProxyError(
      'UPSTREAM_FAILED',
      `${provider.name}'s token endpoint: ${describeFailure(error)}`,
      {
        cause: error,
      },
    );
  }
  const answer = await tokenAnswer(res);
  // GitHub answers errors with 200 and an `error` field: the field decides, not the status.
  const error = typeof answer?.error === 'string' ? answer.error : undefined;
  if (error !== undefined || !res.ok || answer === undefined) {
    // The provider's error code only (invalid_grant, bad_verification_code…): never its description, which
    // might echo what was sent.
    throw new OAuthProxyError(
      'UPSTREAM_FAILED',
      `${provider.name}'s token endpoint refused (${res.status}${error === undefined ? '' : `, ${safeCode(error)}`})`,
      { upstreamError: error === undefined ? undefined : safeCode(error) },
    );
  }
  const accessToken = answer.access_token;
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw new OAuthProxyError(
      'UPSTREAM_FAILED',
      `${provider.name}'s token endpoint answered no access token`,
    );
  }
  const expiresIn = Number(answer.expires_in);
  const obtainedAt = Date.now();
  const scope = typeof answer.scope === 'string' ? answer.scope : '';
  return {
    accessToken,
    tokenType: typeof answer.token_type === 'string' ? answer.token_type : 'Bearer',
    ...(typeof answer.refresh_token === 'string' &&
      answer.refresh_token !== '' && { refreshToken: answer.refresh_token }),
    obtainedAt,
    ...(Number.isFinite(expiresIn) && expiresIn > 0 && { expiresAt: obtainedAt + expiresIn * 1000 }),
    // GitHub separates granted scopes with commas, the RFC with spaces.
    scopes: scope.split(/[\s,]+/).filter((s) => s !== ''),
    ...(typeof answer.id_token === 'string' && { idToken: answer.id_token }),
  };
}

/** Client authentication at the provider (RFC 6749 §2.3.1); returns the request headers. */
function authenticate(
  provider: UpstreamProvider,
  endpoints: UpstreamEndpoints,
  body: URLSearchParams,
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    // GitHub answers form-encoded unless asked for JSON.
    accept: 'application/json',
  };
  const secret = provider[CLIENT_SECRET]();
  if (secret === undefined || endpoints.tokenEndpointAuthMethod === 'none') {
    body.set('client_id', provider.clientId);
  } else if (endpoints.tokenEndpointAuthMethod === 'client_secret_post') {
    body.set('client_id', provider.clientId);
    body.set('client_secret', secret);
  } else {
    const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
    headers.authorization = `Basic ${btoa(`${encode(provider.clientId)}:${encode(secret)}`)}`;
  }
  return headers;
}

/** A token endpoint's answer, JSON or form-encoded (GitHub's default). */
async function tokenAnswer(res: Response): Promise<Record<string, unknown> | undefined> {
  const text = await res.text().catch(() => '');
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(text));
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** An error code fit for a log line: the OAuth error code charset, bounded. */
function safeCode(code: string): string {
  return /^[\x20-\x21\x23-\x5B\x5D-\x7E]{1,64}$/.test(code) ? code : 'unreadable';
}

function describeFailure(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  return 'unreachable';
}
