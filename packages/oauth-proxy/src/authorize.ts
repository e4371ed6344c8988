// The authorization endpoint and the consent that follows it. Nothing reaches the provider before the user
// approved this client on the proxy's own page (the confused-deputy defence the MCP security guidance asks
// of proxies with a static upstream client), and the approval only counts from the browser that loaded the
// page: a CSRF token in the form, a cookie binding the login to that browser, and the request's origin.
import { ClientProblem } from './clients.js';
import { type AuthorizationRequest, canonicalResource, type ProxyContext } from './context.js';
import { isPkceValue, randomToken, s256, sameSecret, sha256 } from './crypto.js';
import { consentPage, refusal } from './pages.js';
import { authorizationUrl } from './upstream/provider.js';
import { cookieOf, formOf, page, redirect, singleParams } from './web.js';

/** A request waiting for the user's decision (named by a random id carried by the consent form). */
interface PendingAuthorization extends AuthorizationRequest {
  readonly csrf: string;
  /** SHA-256 of the browser's binding cookie. */
  readonly browser: string;
  readonly documentHost: string | undefined;
  readonly clientName: string | undefined;
}

/** A login at the provider, named by the SHA-256 of the `state` sent there. */
export interface UpstreamLogin {
  readonly request: AuthorizationRequest;
  /** What the user consented to (a subset of what was asked). */
  readonly scopes: readonly string[];
  readonly verifier: string;
  readonly nonce: string;
  readonly browser: string;
}

/** `GET /oauth/authorize`: checks the request, then shows the consent page. */
export async function authorize(proxy: ProxyContext, request: Request): Promise<Response> {
  const { values: params, repeated } = singleParams(new URL(request.url).searchParams);
  if (repeated !== undefined) {
    return refusal(request, 400, 'invalid_request', `The parameter ${safeName(repeated)} is repeated`);
  }
  const clientId = params.get('client_id');
  if (clientId === undefined) return refusal(request, 400, 'invalid_request', 'client_id is missing');
  const client = await proxy.clients.find(clientId);
  if (client instanceof ClientProblem) return refusal(request, 400, client.error, client.description);
  // Until the redirect URI is known to be the client's own, nothing is sent to it: not even an error.
  const given = params.get('redirect_uri');
  const redirectUri = given ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
  if (redirectUri === undefined) {
    return refusal(
      request,
      400,
      'invalid_request',
      'redirect_uri is missing (the client registered several)',
    );
  }
  if (!client.redirect_uris.includes(redirectUri)) {
    return refusal(request, 400, 'invalid_request', 'redirect_uri is not registered for this client');
  }
  const state = params.get('state');
  const back = (error: string, description: string) =>
    toClient(proxy, redirectUri, { error, error_description: description, state });
  if (state !== undefined && state.length > 2048) return back('invalid_request', 'state is too long');
  if (params.get('response_type') !== 'code') {
    return back(
      'unsupported_response_type',
      'Only the authorization code flow (response_type=code) is supported',
    );
  }
  if (params.has('request') || params.has('request_uri')) {
    return back('request_not_supported', 'Request objects are not supported');
  }
  const challenge = params.get('code_challenge');
  if (challenge === undefined || !isPkceValue(challenge)) {
    return back('invalid_request', 'PKCE is required: send a code_challenge (S256)');
  }
  if (params.get('code_challenge_method') !== 'S256') {
    return back('invalid_request', 'code_challenge_method must be S256');
  }
  const resource = params.get('resource');
  if (resource !== undefined && canonicalResource(resource) !== proxy.resource) {
    return back('invalid_target', 'This authorization server issues tokens for its own MCP server only');
  }
  const scopes = requestedScopes(proxy, params.get('scope'));
  if (scopes === undefined)
    return back('invalid_scope', 'The request asks for a scope this server does not have');
  if ((params.get('prompt') ?? '').split(' ').includes('none')) {
    return back('interaction_required', 'The user must approve this client');
  }

  // The browser's binding: reused when it has one, so that several logins in one browser all work.
  const existing = cookieOf(request, proxy.cookieName);
  const binding = existing !== undefined && /^[A-Za-z0-9_-]{43}$/.test(existing) ? existing : randomToken(32);
  const requestId = randomToken(24);
  const pending: PendingAuthorization = {
    clientId,
    redirectUri,
    redirectUriGiven: given !== undefined,
    state,
    codeChallenge: challenge,
    scopes,
    csrf: randomToken(32),
    browser: await sha256(binding),
    documentHost: client.kind === 'document' ? new URL(clientId).host : undefined,
    clientName: client.client_name,
  };
  await proxy.store.put('pending', requestId, pending, proxy.settings.loginTimeoutMs);
  const nonce = randomToken(16);
  const html = consentPage({
    serverName: proxy.serverName(),
    providerName: proxy.settings.upstream.name,
    clientName: client.client_name,
    clientId,
    documentHost: pending.documentHost,
    redirectUri,
    scopes,
    scopeDescriptions: proxy.settings.scopeDescriptions,
    providerScopes: proxy.settings.upstream.scopes,
    action: proxy.urls.consent,
    requestId,
    csrf: pending.csrf,
    nonce,
  });
  // Set every time: its lifetime restarts with each login.
  return page(200, html, nonce, { 'set-cookie': bindingCookie(proxy, binding) });
}

/** `POST /oauth/consent`: the user's decision, accepted only from the browser that loaded the page. */
export async function consent(proxy: ProxyContext, request: Request): Promise<Response> {
  // A cross-site form post says where it comes from; our own page posts same-origin.
  const origin = request.headers.get('origin');
  const site = request.headers.get('sec-fetch-site');
  if ((origin !== null && origin !== proxy.settings.issuer) || (site !== null && site !== 'same-origin')) {
    return refusal(request, 403, 'invalid_request', 'The consent was not sent from the consent page');
  }
  const form = await formOf(request);
  if (form === undefined) return refusal(request, 400, 'invalid_request', 'The consent must be a form post');
  const { values, repeated, lists } = singleParams(form, ['scope']);
  if (repeated !== undefined) return refusal(request, 400, 'invalid_request', 'A form field is repeated');
  const requestId = values.get('request') ?? '';
  const pending = /^[A-Za-z0-9_-]{32}$/.test(requestId)
    ? await proxy.store.read<PendingAuthorization>('pending', requestId)
    : undefined;
  if (pending === undefined) {
    return refusal(
      request,
      400,
      'invalid_request',
      'This authorization request is unknown or expired: start again from your MCP client',
    );
  }
  const binding = cookieOf(request, proxy.cookieName);
  const sameBrowser = binding !== undefined && (await sameSecret(await sha256(binding), pending.browser));
  const csrf = values.get('csrf');
  if (!sameBrowser || csrf === undefined || !(await sameSecret(csrf, pending.csrf))) {
    proxy.logger()?.warn('consent refused: not from the consent page', { client: pending.clientId });
    return refusal(
      request,
      403,
      'invalid_request',
      'The consent could not be verified: approve it on the consent page, in the browser that opened it',
    );
  }
  // One decision per request: of two concurrent posts, one counts.
  if ((await proxy.store.take('pending', requestId)) === undefined) {
    return refusal(request, 400, 'invalid_request', 'This authorization request was already answered');
  }
  const decision = values.get('decision');
  if (decision !== 'approve') {
    proxy.logger()?.info('consent denied', { client: pending.clientId });
    return toClient(
      proxy,
      pending.redirectUri,
      {
        error: 'access_denied',
        error_description: 'The user denied the request',
        state: pending.state,
      },
      303,
    );
  }
  // The user may uncheck scopes; a form that adds one is not believed.
  const consented = pending.scopes.filter((scope) => (lists.get('scope') ?? []).includes(scope));
  const upstreamState = randomToken(32);
  const login: UpstreamLogin = {
    request: {
      clientId: pending.clientId,
      redirectUri: pending.redirectUri,
      redirectUriGiven: pending.redirectUriGiven,
      state: pending.state,
      codeChallenge: pending.codeChallenge,
      scopes: pending.scopes,
    },
    scopes: consented,
    verifier: randomToken(32),
    nonce: randomToken(16),
    browser: pending.browser,
  };
  // The provider's state exists only now, after the approval (MCP security best practices, state handling).
  await proxy.store.put('flow', await sha256(upstreamState), login, proxy.settings.loginTimeoutMs);
  const endpoints = await proxy.settings.upstream.endpoints(proxy.upstream);
  proxy.logger()?.info('consent given; signing in at the provider', {
    client: pending.clientId,
    provider: proxy.settings.upstream.name,
  });
  return redirect(
    authorizationUrl(proxy.settings.upstream, endpoints, {
      state: upstreamState,
      challenge: await s256(login.verifier),
      nonce: login.nonce,
      redirectUri: proxy.urls.callback,
    }),
    303,
  );
}

/**
 * Sends the browser back to the client's (registered, checked) redirect URI with `params`, plus `iss` (RFC
 * 9207): the authorization response, or an error the client may act on.
 */
export function toClient(
  proxy: ProxyContext,
  redirectUri: string,
  params: Record<string, string | undefined>,
  status: 302 | 303 = 302,
): Response {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', proxy.settings.issuer);
  return redirect(url.href, status);
}

/** The scopes asked for (all this server has when none are named), or `undefined` for an unknown one. */
function requestedScopes(proxy: ProxyContext, scope: string | undefined): string[] | undefined {
  if (scope === undefined || scope.trim() === '') return [...proxy.settings.scopes];
  // offline_access is an OpenID Connect way to ask for refresh tokens: clients registered for the
  // refresh_token grant get them anyway.
  const asked = [...new Set(scope.split(' ').filter((s) => s !== '' && s !== 'offline_access'))];
  return asked.every((s) => proxy.settings.scopes.includes(s)) ? asked : undefined;
}

function bindingCookie(proxy: ProxyContext, value: string): string {
  // `__Host-` (https only): bound to this origin, no Domain, Path=/. Lax: sent on the provider's redirect back.
  const secure = proxy.secureCookies ? '; Secure' : '';
  return `${proxy.cookieName}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${Math.floor(proxy.settings.loginTimeoutMs / 1000)}${secure}`;
}

/** A parameter name fit for an error description. */
function safeName(name: string): string {
  return /^[a-z_]{1,40}$/.test(name) ? name : '(unnamed)';
}
