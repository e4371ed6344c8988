// The token endpoint (authorization code with PKCE, refresh with rotation) and revocation (RFC 7009).
// Every refusal is an OAuth error JSON with no token in it; a code or refresh token used twice ends the
// whole login it belongs to.
import type { CodeRecord } from './callback.js';
import { type Client, ClientProblem } from './clients.js';
import { canonicalResource, type ProxyContext } from './context.js';
import { pkceMatches, sha256 } from './crypto.js';
import { formOf, json, OPEN_CORS, oauthError, singleParams } from './web.js';

/** How long a redeemed code is remembered, so that a second use can be told from an unknown code. */
const USED_CODE_MS = 10 * 60_000;

export async function token(proxy: ProxyContext, request: Request): Promise<Response> {
  const checked = await checkedRequest(proxy, request);
  if (checked instanceof Response) return checked;
  const { params, client } = checked;
  const grantType = params.get('grant_type');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    return refuse(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  }
  if (!client.grant_types.includes(grantType)) {
    return refuse(400, 'unauthorized_client', `This client is not registered for the ${grantType} grant`);
  }
  const resource = params.get('resource');
  if (resource !== undefined && canonicalResource(resource) !== proxy.resource) {
    return refuse(
      400,
      'invalid_target',
      'This authorization server issues tokens for its own MCP server only',
    );
  }
  const answer =
    grantType === 'authorization_code'
      ? await redeemCode(proxy, client, params)
      : await refresh(proxy, client, params);
  if (answer instanceof Response) return answer;
  await proxy.clients.touch(client);
  return json(200, answer, OPEN_CORS);
}

async function redeemCode(proxy: ProxyContext, client: Client, params: Map<string, string>) {
  const code = params.get('code');
  if (code === undefined || code.length > 512) return refuse(400, 'invalid_request', 'code is missing');
  const name = await sha256(code);
  const record = await proxy.store.take<CodeRecord>('code', name);
  if (record === undefined) {
    const grantId = await proxy.store.read<string>('code-used', name);
    if (grantId !== undefined) {
      // OAuth 2.1 §4.1.3: a code used twice was stolen or replayed; what it gave is taken back.
      await proxy.grants.revoke(grantId, 'authorization code reused');
      return refuse(400, 'invalid_grant', 'The authorization code was already used; its tokens are revoked');
    }
    return refuse(400, 'invalid_grant', 'The authorization code is unknown or expired');
  }
  // Redeemed from now on, whatever the outcome: a code gets one attempt.
  await proxy.store.put('code-used', name, record.grantId, USED_CODE_MS);
  if (record.clientId !== client.client_id) {
    return refuse(400, 'invalid_grant', 'The authorization code was issued to another client');
  }
  if (record.expiresAt <= Date.now()) return refuse(400, 'invalid_grant', 'The authorization code expired');
  // RFC 6749 §4.1.3: the same redirect_uri as the authorization request, if that one had it.
  const redirectUri = params.get('redirect_uri');
  if (redirectUri === undefined ? record.redirectUriGiven : redirectUri !== record.redirectUri) {
    return refuse(400, 'invalid_grant', 'redirect_uri differs from the authorization request');
  }
  const verifier = params.get('code_verifier');
  if (verifier === undefined || !(await pkceMatches(verifier, record.codeChallenge))) {
    return refuse(400, 'invalid_grant', 'The PKCE code_verifier is missing or does not match');
  }
  const grant = await proxy.grants.read(record.grantId);
  if (grant === undefined) return refuse(400, 'invalid_grant', 'The login was revoked');
  return proxy.grants.issue(grant, record.scopes, client.grant_types.includes('refresh_token'));
}

async function refresh(proxy: ProxyContext, client: Client, params: Map<string, string>) {
  const refreshToken = params.get('refresh_token');
  if (refreshToken === undefined || refreshToken.length > 512) {
    return refuse(400, 'invalid_request', 'refresh_token is missing');
  }
  const scope = params.get('scope');
  const scopes =
    scope === undefined ? undefined : scope.split(' ').filter((s) => s !== '' && s !== 'offline_access');
  const answer = await proxy.grants.refresh(refreshToken, client.client_id, scopes);
  return 'error' in answer ? refuse(answer.status, answer.error, answer.description) : answer;
}

/** `POST /oauth/revoke` (RFC 7009): ends the login a refresh or access token belongs to. */
export async function revoke(proxy: ProxyContext, request: Request): Promise<Response> {
  const checked = await checkedRequest(proxy, request);
  if (checked instanceof Response) return checked;
  const { params, client } = checked;
  const value = params.get('token');
  if (value === undefined || value === '') return refuse(400, 'invalid_request', 'token is missing');
  if (value.length > 8192)
    return new Response(null, { status: 200, headers: { ...OPEN_CORS, 'cache-control': 'no-store' } });
  const owner = await ownerOf(proxy, value);
  if (owner !== undefined) {
    if (owner.clientId !== client.client_id) {
      return refuse(400, 'invalid_request', 'The token was not issued to this client');
    }
    await proxy.grants.revoke(owner.grantId, 'revoked by the client');
  }
  // RFC 7009 §2.2: an unknown, expired or already revoked token is answered 200 as well.
  return new Response(null, { status: 200, headers: { ...OPEN_CORS, 'cache-control': 'no-store' } });
}

/** The login a refresh token or access token of this proxy belongs to. */
async function ownerOf(
  proxy: ProxyContext,
  value: string,
): Promise<{ grantId: string; clientId: string } | undefined> {
  const refreshRecord = await proxy.store.read<{ grantId: string; clientId: string }>(
    'refresh',
    await sha256(value),
  );
  if (refreshRecord !== undefined) return refreshRecord;
  const claims = await proxy.keys.verify(value, proxy.settings.issuer, proxy.resource);
  if (claims === undefined) return undefined;
  const { sid, client_id: clientId } = claims;
  return typeof sid === 'string' && typeof clientId === 'string' ? { grantId: sid, clientId } : undefined;
}

/** A form post from an authenticated client, each parameter once. */
async function checkedRequest(
  proxy: ProxyContext,
  request: Request,
): Promise<Response | { params: Map<string, string>; client: Client }> {
  const form = await formOf(request);
  if (form === undefined) {
    return refuse(400, 'invalid_request', 'The request must be application/x-www-form-urlencoded');
  }
  const { values: params, repeated } = singleParams(form);
  if (repeated !== undefined) return refuse(400, 'invalid_request', 'A parameter is repeated');
  const client = await proxy.clients.authenticate(request, params);
  if (client instanceof ClientProblem) {
    const status = client.error === 'invalid_client' ? 401 : 400;
    const basic = /^Basic\b/i.test(request.headers.get('authorization') ?? '');
    return refuse(
      status,
      client.error,
      client.description,
      basic ? { 'www-authenticate': 'Basic realm="oauth"' } : {},
    );
  }
  return { params, client };
}

function refuse(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): Response {
  return oauthError(status, error, description, { ...OPEN_CORS, ...headers });
}
