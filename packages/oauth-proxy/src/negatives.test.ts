// Every refusal the issue lists, each asserting the status, the error code, and that no token was issued
// (the proxy's `tokens issued` log line did not move, and nothing reached the client's redirect URI).
// Against a real oidc-provider upstream set up like GitHub, over real HTTP; the browser is played by the test.
import { InMemoryKeyValueStore } from '@pier/core';
import { base64url } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callback, startCallback } from '../../plugin-auth/src/test-flows.js';
import { s256 } from './crypto.js';
import { github } from './index.js';
import { Browser, logIn, toProxyCallback } from './test-browser.js';
import { callbackUrlOf, callTool, freePort, type NotesRig, refreshAt, startNotes } from './test-rig.js';
import { startUpstream, type Upstream } from './test-upstream.js';

const APP = { clientId: 'negatives-app', clientSecret: 'negatives-secret-0123456789abcdef012345' };
const OTHER = { clientId: 'other-server-app', clientSecret: 'other-secret-0123456789abcdef01234567' };
/** The proxies of both servers share one store and one secret, as two MCP servers of one deployment may. */
const SHARED_SECRET = 'one-secret-for-both-servers-0123456789abcdef';

let upstream: Upstream;
let rig: NotesRig;
let other: NotesRig;
let callback: Callback;
let attacker: Callback;

beforeAll(async () => {
  const [port, otherPort] = [await freePort(), await freePort()];
  callback = await startCallback();
  attacker = await startCallback();
  upstream = await startUpstream({
    clients: [
      { ...APP, redirectUri: callbackUrlOf(port) },
      { ...OTHER, redirectUri: callbackUrlOf(otherPort) },
    ],
  });
  const store = new InMemoryKeyValueStore();
  rig = await startNotes(port, {
    upstream: github({ ...APP, ...upstream.github }),
    store,
    secret: SHARED_SECRET,
    authorizationCodeTtlSeconds: 2,
  });
  other = await startNotes(otherPort, {
    upstream: github({ ...OTHER, ...upstream.github }),
    store,
    secret: SHARED_SECRET,
  });
});
afterAll(async () => {
  await rig?.close();
  await other?.close();
  await upstream?.close();
  await callback?.close();
  await attacker?.close();
});

/** A public client registered by DCR, as an MCP client (or an attacker) would register one. */
async function register(redirectUri: string, on: NotesRig = rig): Promise<string> {
  const res = await fetch(`${on.issuer}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Negative tests',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

interface Login {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly verifier: string;
  readonly code: string;
}

/** A complete, honest login up to the code: what the negative cases then tamper with. */
async function codeFor(on: NotesRig = rig, browser = new Browser()): Promise<Login> {
  const clientId = await register(callback.redirectUrl, on);
  const verifier = base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
  const params = await logIn(
    browser,
    await authorizeUrl(clientId, callback.redirectUrl, verifier, on),
    callback.redirectUrl,
  );
  const code = params.get('code');
  expect(code, params.toString()).toBeTruthy();
  return { clientId, redirectUri: callback.redirectUrl, verifier, code: code as string };
}

async function authorizeUrl(
  clientId: string,
  redirectUri: string,
  verifier = 'v'.repeat(43),
  on: NotesRig = rig,
  extra: Record<string, string> = {},
): Promise<string> {
  const url = new URL(`${on.issuer}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: await s256(verifier),
    code_challenge_method: 'S256',
    state: 'client-state-123',
    scope: 'notes:read notes:write',
    resource: on.resource,
    ...extra,
  }).toString();
  return url.href;
}

function exchange(
  login: Login,
  changes: Record<string, string | undefined> = {},
  on: NotesRig = rig,
): Promise<Response> {
  const params: Record<string, string | undefined> = {
    grant_type: 'authorization_code',
    code: login.code,
    redirect_uri: login.redirectUri,
    code_verifier: login.verifier,
    client_id: login.clientId,
    ...changes,
  };
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) body.set(name, value);
  return fetch(`${on.issuer}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
}

/** Asserts an OAuth error answer: status, error code, and no token in it. */
async function expectRefusal(res: Response, status: number, error: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(body.error).toBe(error);
  expect(body.access_token).toBeUndefined();
  expect(body.refresh_token).toBeUndefined();
  return body;
}

/** A 2026-07-28 tools/call of `whoami` with `token`. */
const callWith = (token: string, on: NotesRig = rig) => callTool(on.url, 'whoami', token);

/** A 401 from the MCP endpoint: the challenge names the failure; no handler ran. */
async function expectUnauthorized(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  expect(((await res.json()) as { error?: string }).error).toBe('invalid_token');
}

describe('the authorization endpoint', () => {
  it('an unregistered redirect URI is refused without redirecting anywhere', async () => {
    const clientId = await register(callback.redirectUrl);
    const issued = rig.issued();
    const res = await fetch(await authorizeUrl(clientId, attacker.redirectUrl), { redirect: 'manual' });
    expect(res.headers.get('location')).toBeNull();
    await expectRefusal(res, 400, 'invalid_request');
    // A browser gets the same refusal as a page, with no form to approve.
    const page = await new Browser().open(await authorizeUrl(clientId, attacker.redirectUrl));
    expect(page.status).toBe(400);
    expect(page.html).toContain('invalid_request');
    expect(page.forms).toEqual([]);
    expect(attacker.received).toEqual([]);
    expect(rig.issued()).toBe(issued);
  });

  it('an unknown client is refused without redirecting', async () => {
    const res = await fetch(await authorizeUrl('no-such-client', callback.redirectUrl), {
      redirect: 'manual',
    });
    expect(res.headers.get('location')).toBeNull();
    await expectRefusal(res, 400, 'invalid_client');
  });

  it.each([
    ['no code_challenge', { code_challenge: '' }, 'invalid_request'],
    ['the plain PKCE method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['an implicit flow', { response_type: 'token' }, 'unsupported_response_type'],
    ['a scope this server does not have', { scope: 'notes:read admin:everything' }, 'invalid_scope'],
    ['another resource', { resource: 'https://other.example.com/mcp' }, 'invalid_target'],
    ['no interaction (prompt=none)', { prompt: 'none' }, 'interaction_required'],
  ])(
    '%s: the error goes back to the registered redirect URI, with iss and state, no code',
    async (_case, extra, error) => {
      const clientId = await register(callback.redirectUrl);
      const issued = rig.issued();
      const res = await fetch(await authorizeUrl(clientId, callback.redirectUrl, undefined, rig, extra), {
        redirect: 'manual',
      });
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location') as string);
      expect(`${location.origin}${location.pathname}`).toBe(callback.redirectUrl);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('state')).toBe('client-state-123');
      expect(location.searchParams.get('iss')).toBe(rig.issuer);
      expect(location.searchParams.get('code')).toBeNull();
      expect(rig.issued()).toBe(issued);
    },
  );

  it('a repeated parameter is refused (RFC 6749 §3.1)', async () => {
    const clientId = await register(callback.redirectUrl);
    const url = `${await authorizeUrl(clientId, callback.redirectUrl)}&client_id=${clientId}`;
    await expectRefusal(await fetch(url, { redirect: 'manual' }), 400, 'invalid_request');
  });
});

describe('the token endpoint', () => {
  it('the redirect URI changed between authorize and token: invalid_grant, and the code is spent', async () => {
    const login = await codeFor();
    const issued = rig.issued();
    await expectRefusal(
      await exchange(login, { redirect_uri: `${login.redirectUri}/other` }),
      400,
      'invalid_grant',
    );
    await expectRefusal(await exchange(login, { redirect_uri: undefined }), 400, 'invalid_grant');
    expect(rig.issued()).toBe(issued);
  });

  it.each([
    ['missing', undefined],
    ['wrong', base64url.encode(crypto.getRandomValues(new Uint8Array(32)))],
    ['malformed', 'short'],
  ])('a %s PKCE verifier: invalid_grant, no token', async (_case, verifier) => {
    const login = await codeFor();
    const issued = rig.issued();
    const body = await expectRefusal(
      await exchange(login, { code_verifier: verifier }),
      400,
      'invalid_grant',
    );
    expect(String(body.error_description)).toMatch(/PKCE/);
    // The code had its one attempt: the right verifier no longer helps.
    await expectRefusal(await exchange(login), 400, 'invalid_grant');
    expect(rig.issued()).toBe(issued);
  });

  it('a reused code: invalid_grant, and the tokens the first use gave are revoked', async () => {
    const login = await codeFor();
    const first = await exchange(login);
    expect(first.status).toBe(200);
    const tokens = (await first.json()) as { access_token: string; refresh_token: string };
    expect((await callWith(tokens.access_token)).status).toBe(200);
    const issued = rig.issued();
    const body = await expectRefusal(await exchange(login), 400, 'invalid_grant');
    expect(String(body.error_description)).toMatch(/already used/);
    expect(rig.issued()).toBe(issued);
    await expectUnauthorized(await callWith(tokens.access_token));
  });

  it('an expired code: invalid_grant, no token', async () => {
    const login = await codeFor();
    await new Promise((resolve) => setTimeout(resolve, 2_300));
    const issued = rig.issued();
    await expectRefusal(await exchange(login), 400, 'invalid_grant');
    expect(rig.issued()).toBe(issued);
  });

  it('a code issued to another client: invalid_grant', async () => {
    const login = await codeFor();
    const thief = await register(attacker.redirectUrl);
    const issued = rig.issued();
    await expectRefusal(
      await exchange(login, { client_id: thief, redirect_uri: attacker.redirectUrl }),
      400,
      'invalid_grant',
    );
    expect(rig.issued()).toBe(issued);
  });

  it('a token request for another resource: invalid_target', async () => {
    const login = await codeFor();
    await expectRefusal(await exchange(login, { resource: other.resource }), 400, 'invalid_target');
  });

  it('a reused refresh token revokes the whole login (rotation)', async () => {
    const login = await codeFor();
    const tokens = (await (await exchange(login)).json()) as { access_token: string; refresh_token: string };
    const refresh = (token: string) => refreshAt(rig.issuer, token, login.clientId);
    const rotated = (await (await refresh(tokens.refresh_token)).json()) as {
      access_token: string;
      refresh_token: string;
    };
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await callWith(rotated.access_token)).status).toBe(200);
    // Past the moment in which a concurrent duplicate of the same refresh would be answered alike.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const issued = rig.issued();
    await expectRefusal(await refresh(tokens.refresh_token), 400, 'invalid_grant');
    expect(rig.issued()).toBe(issued);
    // The thief replayed the old one: the legitimate client's new tokens are gone as well.
    await expectUnauthorized(await callWith(rotated.access_token));
    await expectRefusal(await refresh(rotated.refresh_token), 400, 'invalid_grant');
  });

  it("control: one client's concurrent refreshes (requests that met a 401 together) share one rotation", async () => {
    const login = await codeFor();
    const tokens = (await (await exchange(login)).json()) as { refresh_token: string };
    const answers = await Promise.all(
      Array.from({ length: 3 }, () => refreshAt(rig.issuer, tokens.refresh_token, login.clientId)),
    );
    const bodies = (await Promise.all(answers.map((res) => res.json()))) as {
      access_token: string;
      refresh_token: string;
    }[];
    expect(
      answers.map((res) => res.status),
      JSON.stringify(bodies),
    ).toEqual([200, 200, 200]);
    expect(new Set(bodies.map((body) => body.refresh_token)).size).toBe(1);
    expect((await callWith(bodies[0]?.access_token as string)).status).toBe(200);
    // Used again once the rotation is over, it is a reuse like any other.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await expectRefusal(
      await refreshAt(rig.issuer, tokens.refresh_token, login.clientId),
      400,
      'invalid_grant',
    );
    await expectUnauthorized(await callWith(bodies[0]?.access_token as string));
  });

  it('a public client presenting a secret, or an unknown client: invalid_client (401)', async () => {
    const login = await codeFor();
    await expectRefusal(await exchange(login, { client_secret: 'guess' }), 401, 'invalid_client');
    await expectRefusal(await exchange(login, { client_id: 'nobody' }), 401, 'invalid_client');
  });
});

describe('the provider callback', () => {
  it('a tampered state is refused; nothing reaches the client; the honest state still works', async () => {
    const clientId = await register(callback.redirectUrl);
    const verifier = 'w'.repeat(43);
    const browser = new Browser();
    // The person approves and signs in; the provider redirects to the proxy's callback, intercepted here.
    const intercepted = await toProxyCallback(
      browser,
      await authorizeUrl(clientId, callback.redirectUrl, verifier),
      rig.issuer,
    );
    const honest = new URL(intercepted);
    const state = honest.searchParams.get('state') as string;
    const received = callback.received.length;
    const issued = rig.issued();
    for (const tampered of [`${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`, '', 'x'.repeat(600)]) {
      const url = new URL(honest);
      url.searchParams.set('state', tampered);
      const answer = await browser.request(url.href);
      expect(answer.status).toBe(400);
      expect(answer.html).toContain('invalid_request');
      expect(answer.headers.get('location')).toBeNull();
    }
    const missing = new URL(honest);
    missing.searchParams.delete('state');
    expect((await browser.request(missing.href)).status).toBe(400);
    expect(callback.received.length).toBe(received);
    expect(rig.issued()).toBe(issued);
    // Control: the untouched callback completes the login.
    const done = await browser.request(honest.href);
    expect(done.status).toBe(302);
    expect(new URL(done.headers.get('location') as string).searchParams.get('code')).toBeTruthy();
  });

  it('the right state from another browser is refused (the login is bound to the browser that consented)', async () => {
    const clientId = await register(callback.redirectUrl);
    const browser = new Browser();
    const intercepted = await toProxyCallback(
      browser,
      await authorizeUrl(clientId, callback.redirectUrl),
      rig.issuer,
    );
    const issued = rig.issued();
    const elsewhere = await new Browser().request(intercepted);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.html).toContain('invalid_request');
    expect(rig.issued()).toBe(issued);
  });
});

describe('consent cannot be skipped', () => {
  it("a self-registered client riding alice's provider session still meets the consent page, and nothing else", async () => {
    // Alice logged in once through a legitimate client: her browser has a session at the provider.
    const browser = new Browser();
    await codeFor(rig, browser);
    const upstreamAuthorizations = upstream.log.filter((line) => line === 'GET /auth').length;
    // The attacker registers a client with their own redirect URI and sends alice the link.
    const evil = await register(attacker.redirectUrl);
    const page = await browser.open(await authorizeUrl(evil, attacker.redirectUrl));
    expect(page.status).toBe(200);
    expect(page.forms[0]?.action).toBe(`${rig.issuer}/oauth/consent`);
    expect(page.html).toContain(attacker.redirectUrl);
    expect(page.html).toContain('registered itself');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // Nothing went to the provider, nothing to the attacker.
    expect(upstream.log.filter((line) => line === 'GET /auth').length).toBe(upstreamAuthorizations);
    expect(attacker.received).toEqual([]);
  });

  it.each([
    // A page of another origin on this machine (the transport's DNS-rebinding guard already refuses foreign
    // hosts on a loopback bind; this one passes it and meets the proxy's own check).
    ['posted from another origin', { origin: 'http://127.0.0.1:1' }, true, true],
    ['posted cross-site (Sec-Fetch-Site)', { 'sec-fetch-site': 'cross-site' }, true, true],
    ['without the browser cookie (another browser, or SameSite withheld it)', {}, false, true],
    ['with a wrong CSRF token', {}, true, false],
  ])(
    'an approval %s is refused: 403, no redirect, no code',
    async (_case, headers, withCookie, rightCsrf) => {
      const browser = new Browser();
      const evil = await register(attacker.redirectUrl);
      const page = await browser.open(await authorizeUrl(evil, attacker.redirectUrl));
      const form = page.forms[0];
      expect(form).toBeDefined();
      const fields = new URLSearchParams(form?.fields as [string, string][]);
      fields.set('decision', 'approve');
      if (!rightCsrf) fields.set('csrf', 'A'.repeat(43));
      const cookie = browser.cookie('127.0.0.1', 'pier-oauth');
      const upstreamAuthorizations = upstream.log.filter((line) => line === 'GET /auth').length;
      const issued = rig.issued();
      const res = await fetch(`${rig.issuer}/oauth/consent`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(withCookie && cookie !== undefined && { cookie: `pier-oauth=${cookie}` }),
          ...headers,
        },
        body: fields,
      });
      await expectRefusal(res, 403, 'invalid_request');
      expect(res.headers.get('location')).toBeNull();
      expect(upstream.log.filter((line) => line === 'GET /auth').length).toBe(upstreamAuthorizations);
      expect(attacker.received).toEqual([]);
      expect(rig.issued()).toBe(issued);
      // Control: the same page, approved from the browser that loaded it, does go on to the provider.
      const approved = await browser.submit(page, form as never, { decision: 'approve' });
      expect(approved.url.startsWith(`${upstream.issuer}/`)).toBe(true);
    },
  );

  it("going straight to the provider with the proxy's client id yields nothing: the callback knows no such state", async () => {
    const browser = new Browser();
    const direct = new URL(upstream.github.authorizationEndpoint);
    direct.search = new URLSearchParams({
      client_id: APP.clientId,
      redirect_uri: callbackUrlOf(Number(new URL(rig.issuer).port)),
      response_type: 'code',
      scope: 'read:user',
      state: 'made-up-by-the-attacker',
    }).toString();
    const intercepted = await toProxyCallback(browser, direct.href, rig.issuer);
    expect(new URL(intercepted).searchParams.get('code')).toBeTruthy();
    const issued = rig.issued();
    const answer = await browser.request(intercepted);
    expect(answer.status).toBe(400);
    expect(answer.html).toContain('invalid_request');
    expect(answer.headers.get('location')).toBeNull();
    expect(rig.issued()).toBe(issued);
  });
});

describe('tokens the MCP endpoint refuses', () => {
  it("the provider's own tokens (access token and ID token) presented directly: 401, no handler", async () => {
    // The test drives the provider's code flow itself with the proxy's app credentials.
    const browser = new Browser();
    const verifier = 'u'.repeat(43);
    const direct = new URL(upstream.github.authorizationEndpoint);
    direct.search = new URLSearchParams({
      client_id: APP.clientId,
      redirect_uri: callbackUrlOf(Number(new URL(rig.issuer).port)),
      response_type: 'code',
      scope: 'openid read:user',
      state: 'direct',
      nonce: 'direct',
      code_challenge: await s256(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const intercepted = await toProxyCallback(browser, direct.href, rig.issuer);
    const res = await fetch(upstream.github.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: new URL(intercepted).searchParams.get('code') as string,
        redirect_uri: callbackUrlOf(Number(new URL(rig.issuer).port)),
        code_verifier: verifier,
        client_id: APP.clientId,
        client_secret: APP.clientSecret,
      }),
    });
    const tokens = (await res.json()) as { access_token: string; id_token: string };
    expect(tokens.access_token).toBeTruthy();
    expect(tokens.id_token).toBeTruthy();
    rig.calls.length = 0;
    await expectUnauthorized(await callWith(tokens.access_token));
    await expectUnauthorized(await callWith(tokens.id_token));
    expect(rig.calls).toEqual([]);
  });

  it("a proxy token for another resource (another server's proxy, same store and secret): 401, no handler", async () => {
    const login = await codeFor(other);
    const res = await exchange(login, {}, other);
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { access_token: string };
    // Control: it is a good token where it belongs.
    expect((await callWith(tokens.access_token, other)).status).toBe(200);
    rig.calls.length = 0;
    await expectUnauthorized(await callWith(tokens.access_token, rig));
    expect(rig.calls).toEqual([]);
  });
});

describe('open redirects', () => {
  it.each([
    ['another origin', () => 'https://evil.example/callback'],
    ['a path appended', () => `${callback.redirectUrl}/../../evil`],
    ['a query appended', () => `${callback.redirectUrl}?next=https://evil.example`],
    ['a longer path', () => `${callback.redirectUrl}x`],
    ['user info', () => callback.redirectUrl.replace('http://', 'http://127.0.0.1@evil.example/?')],
    ['another port', () => callback.redirectUrl.replace(/:(\d+)\//, (_m, p: string) => `:${Number(p) + 1}/`)],
    ['upper case', () => callback.redirectUrl.toUpperCase()],
    ['protocol-relative', () => '//evil.example/callback'],
    ['javascript:', () => 'javascript:alert(document.cookie)'],
    ['a fragment', () => `${callback.redirectUrl}#https://evil.example`],
  ])('/authorize redirect_uri with %s: refused in place, no Location, no code', async (_case, uri) => {
    const clientId = await register(callback.redirectUrl);
    const issued = rig.issued();
    const res = await fetch(await authorizeUrl(clientId, uri()), { redirect: 'manual' });
    expect(res.headers.get('location')).toBeNull();
    await expectRefusal(res, 400, 'invalid_request');
    expect(rig.issued()).toBe(issued);
  });

  it.each([
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'http://evil.example/callback',
    'https://good.example/callback#fragment',
    'https://user:pass@good.example/callback',
    'file:///etc/passwd',
    '/relative/callback',
    'vbscript:msgbox(1)',
  ])('registration with the redirect URI %s: 400 invalid_redirect_uri, no client', async (uri) => {
    const res = await fetch(`${rig.issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [uri], token_endpoint_auth_method: 'none' }),
    });
    const body = await expectRefusal(res, 400, 'invalid_redirect_uri');
    expect(body.client_id).toBeUndefined();
  });

  it('a redirect_uri slipped into the consent form is ignored: the answer goes to the registered URI', async () => {
    const browser = new Browser();
    const clientId = await register(callback.redirectUrl);
    const page = await browser.open(await authorizeUrl(clientId, callback.redirectUrl));
    const res = await browser.request(`${rig.issuer}/oauth/consent`, {
      method: 'POST',
      body: new URLSearchParams([
        ...((page.forms[0]?.fields ?? []) as [string, string][]),
        ['decision', 'deny'],
        ['redirect_uri', attacker.redirectUrl],
      ]).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: rig.issuer,
        'sec-fetch-site': 'same-origin',
      },
    });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(callback.redirectUrl);
    expect(location.searchParams.get('error')).toBe('access_denied');
  });

  it('a redirect parameter on the provider callback is ignored', async () => {
    const res = await fetch(
      `${rig.issuer}/oauth/callback?code=x&state=unknown&redirect_uri=${encodeURIComponent(attacker.redirectUrl)}&next=https://evil.example`,
      {
        redirect: 'manual',
      },
    );
    expect(res.headers.get('location')).toBeNull();
    await expectRefusal(res, 400, 'invalid_request');
    expect(attacker.received).toEqual([]);
  });
});
