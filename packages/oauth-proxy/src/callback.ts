// `GET /oauth/callback`: the provider sends the browser back here. The state must be one the proxy sent
// after a consent, from the same browser; then the provider's code is exchanged (with the proxy's PKCE
// verifier), the user identified, a grant made, and the MCP client gets an authorization code of its own.
import { toClient, type UpstreamLogin } from './authorize.js';
import type { ProxyContext } from './context.js';
import { randomToken, sameSecret, sha256 } from './crypto.js';
import { OAuthProxyError } from './errors.js';
import { refusal } from './pages.js';
import { exchangeCode } from './upstream/provider.js';
import { cookieOf, singleParams } from './web.js';

/** An authorization code of the proxy, named by its SHA-256. */
export interface CodeRecord {
  readonly grantId: string;
  readonly clientId: string;
  readonly redirectUri: string;
  /** Whether the authorization request named the redirect URI (then the token request must, identically). */
  readonly redirectUriGiven: boolean;
  readonly codeChallenge: string;
  readonly scopes: readonly string[];
  /** Milliseconds since the epoch (the store's TTL drops it too). */
  readonly expiresAt: number;
}

export async function callback(proxy: ProxyContext, request: Request): Promise<Response> {
  const { values: params, repeated } = singleParams(new URL(request.url).searchParams);
  if (repeated !== undefined) return refusal(request, 400, 'invalid_request', 'A parameter is repeated');
  const state = params.get('state');
  const name = state === undefined || state.length > 512 ? undefined : await sha256(state);
  const login = name === undefined ? undefined : await proxy.store.read<UpstreamLogin>('flow', name);
  if (name === undefined || login === undefined) {
    proxy.logger()?.warn('provider callback refused: unknown state');
    return refusal(
      request,
      400,
      'invalid_request',
      'This login is unknown or expired (state): start again from your MCP client',
    );
  }
  const binding = cookieOf(request, proxy.cookieName);
  if (binding === undefined || !(await sameSecret(await sha256(binding), login.browser))) {
    proxy.logger()?.warn('provider callback refused: another browser', { client: login.request.clientId });
    return refusal(request, 403, 'invalid_request', 'This login was started in another browser');
  }
  const endpoints = await proxy.settings.upstream.endpoints(proxy.upstream);
  // RFC 9207: an `iss` that is not the provider's is a mix-up; its code is never sent anywhere.
  const iss = params.get('iss');
  if (
    endpoints.issuer !== undefined &&
    (iss === undefined ? endpoints.issParameterSupported : iss !== endpoints.issuer)
  ) {
    proxy
      .logger()
      ?.warn('provider callback refused: issuer mismatch', { provider: proxy.settings.upstream.name });
    return refusal(
      request,
      400,
      'invalid_request',
      'The answer does not come from the expected identity provider',
    );
  }
  // One answer per login.
  if ((await proxy.store.take('flow', name)) === undefined) {
    return refusal(request, 400, 'invalid_request', 'This login was already completed');
  }
  const { request: authorization } = login;
  const back = (error: string, description: string) =>
    toClient(proxy, authorization.redirectUri, {
      error,
      error_description: description,
      state: authorization.state,
    });
  const code = params.get('code');
  const upstreamError = params.get('error');
  if (upstreamError !== undefined || code === undefined) {
    proxy.logger()?.info('the provider refused the login', { provider: proxy.settings.upstream.name });
    return upstreamError === 'access_denied'
      ? back('access_denied', `The sign-in at ${proxy.settings.upstream.name} was cancelled`)
      : back('server_error', `The sign-in at ${proxy.settings.upstream.name} failed`);
  }
  let grantId: string;
  try {
    const tokens = await exchangeCode(proxy.settings.upstream, endpoints, proxy.upstream, {
      code,
      verifier: login.verifier,
      redirectUri: proxy.urls.callback,
    });
    const user = await proxy.settings.upstream.identify(tokens, { ...proxy.upstream, nonce: login.nonce });
    const grant = await proxy.grants.create({
      clientId: authorization.clientId,
      subject: user.id,
      user,
      scopes: login.scopes,
      upstream: tokens,
    });
    grantId = grant.id;
  } catch (error) {
    if (!(error instanceof OAuthProxyError)) throw error;
    proxy.logger()?.warn('sign-in at the provider failed', {
      provider: proxy.settings.upstream.name,
      error: error.message,
    });
    return back('server_error', `The sign-in at ${proxy.settings.upstream.name} failed`);
  }
  const ownCode = randomToken(32);
  const record: CodeRecord = {
    grantId,
    clientId: authorization.clientId,
    redirectUri: authorization.redirectUri,
    redirectUriGiven: authorization.redirectUriGiven,
    codeChallenge: authorization.codeChallenge,
    scopes: login.scopes,
    expiresAt: Date.now() + proxy.settings.codeTtlMs,
  };
  await proxy.store.put('code', await sha256(ownCode), record, proxy.settings.codeTtlMs);
  proxy
    .logger()
    ?.info('login completed', { client: authorization.clientId, provider: proxy.settings.upstream.name });
  return toClient(proxy, authorization.redirectUri, { code: ownCode, state: authorization.state });
}
