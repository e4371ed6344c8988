// The canary: every secret, code and token of a busy session — the provider app's secret, the proxy's
// sealing secret, a confidential client's secret, the proxy's codes, access and refresh tokens, the
// provider's codes and tokens, the state and cookie values of the browser — is collected, then searched for
// in every log line the server wrote (at debug) and every error body anyone got. None may appear.
import { inspect } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { base64url } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Callback, MemoryOAuthProvider, startCallback } from '../../plugin-auth/src/test-flows.js';
import { s256 } from './crypto.js';
import { github, upstreamToken } from './index.js';
import { Browser, logIn } from './test-browser.js';
import { callbackUrlOf, freePort, type NotesRig, startNotes } from './test-rig.js';
import { startUpstream, type Upstream } from './test-upstream.js';
import { UpstreamToken } from './upstream-token.js';

const APP = { clientId: 'canary-app', clientSecret: 'CANARY-app-secret-7f3a9c1e5b2d4f6a8c0e' };
const PROXY_SECRET = 'CANARY-proxy-sealing-secret-9b8d7f6e5c4a3b2a1f0e';

let upstream: Upstream;
let rig: NotesRig;
let callback: Callback;
/** Secret values seen during the session. */
const secrets = new Set<string>([APP.clientSecret, PROXY_SECRET]);
/** Every error body anyone received (status ≥ 400), and every tool result. */
const bodies: string[] = [];

beforeAll(async () => {
  const port = await freePort();
  callback = await startCallback();
  upstream = await startUpstream({
    clients: [{ ...APP, redirectUri: callbackUrlOf(port) }],
    accessTokenTtl: 2,
  });
  rig = await startNotes(
    port,
    { upstream: github({ ...APP, ...upstream.github }), secret: PROXY_SECRET, accessTokenTtlSeconds: 1 },
    { userApi: upstream.github.userEndpoint },
  );
});
afterAll(async () => {
  await rig?.close();
  await upstream?.close();
  await callback?.close();
});

/** Every secret (≥ 16 characters) found in `texts`. */
function leaks(texts: readonly string[], values: Iterable<string>): string[] {
  const found: string[] = [];
  for (const value of values) {
    if (value.length < 16) continue;
    // Also look for the value as it would appear percent-encoded or JSON-escaped.
    const forms = new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]);
    if (texts.some((text) => [...forms].some((form) => text.includes(form)))) found.push(value);
  }
  return found;
}

/** fetch, keeping error bodies. */
async function send(url: string, init: RequestInit): Promise<Response> {
  const res = await fetch(url, init);
  const text = await res.clone().text();
  if (res.status >= 400) bodies.push(text);
  return res;
}

const form = (params: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(params),
});

it('no secret, code or token appears in any log line or error body', async () => {
  // 1. An SDK client logs in (DCR, consent, provider login), calls tools while the provider's 2 s tokens
  // expire and are refreshed, then refreshes its own.
  const provider = new MemoryOAuthProvider(callback);
  const url = new URL(rig.url);
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider as never });
  await new Client({ name: 'canary', version: '1' }, { versionNegotiation: { mode: 'auto' } })
    .connect(first)
    .catch(() => undefined);
  const browser = new Browser();
  const params = await logIn(browser, provider.pending.href, callback.redirectUrl);
  secrets.add(params.get('code') as string);
  await first.finishAuth(params);
  const client = new Client({ name: 'canary', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider as never }));
  for (let round = 0; round < 3; round++) {
    for (const name of ['whoami', 'provider_user', 'list_notes']) {
      const answer = await client.callTool({ name, arguments: {} });
      bodies.push(JSON.stringify(answer));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_200));
  }
  await client.close();
  // The client's refresh, as the SDK sends it once the access token expired.
  const rotated = (await (
    await send(
      `${rig.issuer}/oauth/token`,
      form({
        grant_type: 'refresh_token',
        refresh_token: provider.saved[0]?.refresh_token as string,
        client_id: provider.clientId as string,
      }),
    )
  ).json()) as { access_token: string; refresh_token: string };
  secrets.add(rotated.access_token);
  secrets.add(rotated.refresh_token);

  // 2. A confidential client registers (its secret is a canary), logs in, and makes every mistake.
  const registered = (await (
    await send(`${rig.issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'canary confidential',
        redirect_uris: [callback.redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
      }),
    })
  ).json()) as { client_id: string; client_secret: string };
  secrets.add(registered.client_secret);
  const verifier = base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
  secrets.add(verifier);
  const authorize = new URL(`${rig.issuer}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: registered.client_id,
    redirect_uri: callback.redirectUrl,
    code_challenge: await s256(verifier),
    code_challenge_method: 'S256',
    state: 'canary-client-state-0123456789',
  }).toString();
  const code = (await logIn(new Browser(), authorize.href, callback.redirectUrl)).get('code') as string;
  secrets.add(code);
  const basic = `Basic ${btoa(`${registered.client_id}:${registered.client_secret}`)}`;
  const wrongSecret = `Basic ${btoa(`${registered.client_id}:CANARY-wrong-secret-0123456789abcdef`)}`;
  secrets.add('CANARY-wrong-secret-0123456789abcdef');
  const exchange = (auth: string, extra: Record<string, string> = {}) =>
    send(`${rig.issuer}/oauth/token`, {
      ...form({
        grant_type: 'authorization_code',
        code,
        redirect_uri: callback.redirectUrl,
        code_verifier: verifier,
        ...extra,
      }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
    });
  expect((await exchange(wrongSecret)).status).toBe(401);
  const tokens = (await (await exchange(basic)).json()) as { access_token: string; refresh_token: string };
  secrets.add(tokens.access_token);
  secrets.add(tokens.refresh_token);
  expect((await exchange(basic)).status).toBe(400); // reused code: the login is revoked
  const refreshed = await send(`${rig.issuer}/oauth/token`, {
    ...form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
  });
  expect(refreshed.status).toBe(400);
  // Made-up credentials everywhere.
  const fake = 'CANARY-fake-token-abcdefghijklmnopqrstuvwxyz012345';
  secrets.add(fake);
  await send(rig.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${fake}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: '{}',
  });
  await send(rig.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tokens.access_token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: '{}',
  });
  await send(
    `${rig.issuer}/oauth/token`,
    form({ grant_type: 'refresh_token', refresh_token: fake, client_id: registered.client_id }),
  );
  await send(
    `${rig.issuer}/oauth/token`,
    form({ grant_type: 'authorization_code', code: fake, client_id: 'nobody' }),
  );
  await send(`${rig.issuer}/oauth/revoke`, form({ token: fake, client_id: registered.client_id }));
  await send(`${rig.issuer}/oauth/callback?state=${fake}&code=${fake}`, {});
  await send(`${rig.issuer}/oauth/consent`, form({ request: fake, csrf: fake, decision: 'approve' }));
  // The provider's own tokens at the MCP endpoint.
  for (const value of upstream.issued) {
    await send(rig.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${value}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
  }

  // 3. What the browsers held: the binding cookie, CSRF tokens, the provider's state and codes.
  for (const page of browser.seen) {
    for (const match of page.html.matchAll(/name="(?:csrf|request)" value="([^"]+)"/g))
      secrets.add(match[1] as string);
    const location = page.headers.get('location');
    if (location !== null && URL.canParse(location, page.url)) {
      for (const [name, value] of new URL(location, page.url).searchParams) {
        if (['state', 'code', 'nonce'].includes(name)) secrets.add(value);
      }
    }
    if (page.status >= 400) bodies.push(page.html);
  }
  const cookie = browser.cookie('127.0.0.1', 'pier-oauth');
  expect(cookie).toBeDefined();
  secrets.add(cookie as string);
  for (const saved of provider.saved) {
    secrets.add(saved.access_token);
    if (saved.refresh_token !== undefined) secrets.add(saved.refresh_token);
  }
  for (const value of upstream.issued) secrets.add(value);

  // The session really happened: the provider issued and refreshed tokens, the proxy logged its work, and
  // the careless tool logged its token object.
  expect(upstream.issued.length).toBeGreaterThan(4);
  expect(rotated.refresh_token).toBeTruthy();
  for (const event of [
    'client registered',
    'consent given',
    'login completed',
    'tokens issued',
    'login revoked',
    'request refused',
    'calling the provider',
  ]) {
    expect(
      rig.logs.some((line) => line.includes(event)),
      event,
    ).toBe(true);
  }
  // The scan finds a leak when there is one (its control).
  expect(leaks([`…${tokens.refresh_token}…`], secrets)).toEqual([tokens.refresh_token]);
  expect(leaks([encodeURIComponent(`x=${APP.clientSecret}`)], secrets)).toEqual([APP.clientSecret]);

  expect(leaks(rig.logs, secrets), rig.logs.join('')).toEqual([]);
  expect(leaks(bodies, secrets)).toEqual([]);
});

it('the upstream token object prints redacted everywhere; only reveal() gives it', async () => {
  const token = new UpstreamToken('CANARY-upstream-token-value-0123456789', {
    provider: 'GitHub',
    scopes: ['read:user'],
    tokenType: 'bearer',
  });
  const printed = [
    String(token),
    `${token}`,
    JSON.stringify({ token }),
    inspect(token),
    inspect({ nested: { token } }, { depth: 5 }),
    token + '',
  ];
  for (const text of printed) expect(text).not.toContain('CANARY-upstream-token-value');
  expect(token.reveal()).toBe('CANARY-upstream-token-value-0123456789');
  // Without a proxy-authenticated caller there is no token to give.
  await expect(upstreamToken(undefined)).rejects.toMatchObject({ code: 'UPSTREAM_TOKEN_UNAVAILABLE' });
});
