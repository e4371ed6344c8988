// The logins MCP clients really do, end to end: the official SDK clients (v2 in the 2026-07-28 and 2025 eras,
// v1) run their own OAuth code (discovery, registration or client ID metadata document, PKCE, the code
// exchange, refresh) against the proxy, with a real oidc-provider upstream set up like GitHub (no
// registration endpoint, one pre-registered client, one redirect URI). The test only plays the person at the
// browser: it follows redirects and submits the proxy's consent page and the provider's login page.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Callback, MemoryOAuthProvider, startCallback } from '../../plugin-auth/src/test-flows.js';
import { github, google, oidc } from './index.js';
import { Browser, type LoginChoices, logIn } from './test-browser.js';
import { callbackUrlOf, callTool, freePort, type NotesRig, refreshAt, startNotes } from './test-rig.js';
import { githubId, startUpstream, type Upstream } from './test-upstream.js';

const APP = { clientId: 'pier-notes-github-app', clientSecret: 'gh-app-secret-0123456789abcdef0123456789' };
/** A GitHub App with expiring tokens (3 s here) and refresh tokens. */
const SHORT = { clientId: 'pier-notes-expiring', clientSecret: 'gh-expiring-secret-0123456789abcdef0123' };
/** The same without refresh tokens: the negative control of refresh across the provider's expiry. */
const NO_REFRESH = {
  clientId: 'pier-notes-no-refresh',
  clientSecret: 'gh-norefresh-secret-0123456789abcdef01',
};
/** An app of the same provider, used through OpenID Connect discovery (oidc() and google()). */
const OIDC = { clientId: 'pier-notes-oidc', clientSecret: 'oidc-app-secret-0123456789abcdef012345' };
const GOOGLE = { clientId: 'pier-notes-google', clientSecret: 'google-app-secret-0123456789abcdef0123' };

let port: number;
const ports = { short: 0, noRefresh: 0, oidc: 0, google: 0 };
let upstream: Upstream;
let rig: NotesRig;
let callback: Callback;
let documents: Server;
const documentBodies = new Map<string, string>();
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  port = await freePort();
  for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();
  callback = await startCallback();
  upstream = await startUpstream({
    clients: [
      { ...APP, redirectUri: callbackUrlOf(port) },
      { ...SHORT, redirectUri: callbackUrlOf(ports.short), accessTokenTtl: 3 },
      { ...NO_REFRESH, redirectUri: callbackUrlOf(ports.noRefresh), accessTokenTtl: 3, refreshTokens: false },
      { ...OIDC, redirectUri: callbackUrlOf(ports.oidc) },
      { ...GOOGLE, redirectUri: callbackUrlOf(ports.google) },
    ],
    accessTokenTtl: 300,
  });
  // Client ID metadata documents, served for real over loopback HTTP (see the README: https is required of
  // document URLs, so clients name https://client.test/… and the proxy's document fetch is pointed here).
  documents = createServer((req, res) => {
    const body = documentBodies.get(req.url ?? '');
    res.writeHead(body === undefined ? 404 : 200, {
      'content-type': 'application/json',
      'cache-control': 'max-age=60',
    });
    res.end(body ?? '{}');
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  rig = await startNotes(port, proxyOptions(), { userApi: upstream.github.userEndpoint });
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close().catch(() => undefined)));
});
afterAll(async () => {
  await rig?.close();
  await upstream?.close();
  await callback?.close();
  documents?.closeAllConnections();
  await new Promise((resolve) => documents?.close(resolve));
});

function proxyOptions(app = APP) {
  const local = () => `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  return {
    upstream: github({ ...app, ...upstream.github }),
    clientMetadataDocuments: {
      fetch: (input: string | URL | Request, init?: RequestInit) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        return url.hostname === 'client.test' ? fetch(`${local()}${url.pathname}`, init) : fetch(input, init);
      },
    },
  };
}

type Flavour = 'v2-2026' | 'v2-legacy' | 'v1';

/** Connects `flavour` through its own OAuth machinery; the browser plays the person. */
async function connect(
  flavour: Flavour,
  provider: MemoryOAuthProvider,
  on: NotesRig = rig,
  choices: LoginChoices = {},
): Promise<Client> {
  const url = on.url;
  const make = () =>
    flavour === 'v1'
      ? {
          client: new V1Client({ name: 'v1', version: '1.0.0' }),
          transport: new V1Transport(new URL(url), { authProvider: provider as never }),
        }
      : {
          client: new Client(
            { name: flavour, version: '1.0.0' },
            flavour === 'v2-2026' ? { versionNegotiation: { mode: 'auto' } } : {},
          ),
          transport: new StreamableHTTPClientTransport(new URL(url), { authProvider: provider as never }),
        };
  const first = make();
  const failure = await first.client.connect(first.transport as never).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(String(failure), `${flavour} should be sent to log in first`).toMatch(/Unauthorized/);
  if (flavour !== 'v1') expect(failure).toBeInstanceOf(UnauthorizedError);
  await first.client.close().catch(() => undefined);
  const params = await logIn(new Browser(), provider.pending.href, callback.redirectUrl, choices);
  expect(params.get('iss')).toBe(on.issuer);
  const code = params.get('code');
  expect(code, `no code: ${params.toString()}`).toBeTruthy();
  if (flavour === 'v1') await (first.transport as V1Transport).finishAuth(code as string);
  else await (first.transport as StreamableHTTPClientTransport).finishAuth(params);
  const second = make();
  await second.client.connect(second.transport as never);
  closers.push(() => second.client.close());
  return second.client as Client;
}

describe('dynamic client registration', () => {
  it.each<Flavour>(['v2-2026', 'v2-legacy', 'v1'])(
    '%s registers, alice consents and signs in at the provider, and the client calls tools as alice',
    async (flavour) => {
      const provider = new MemoryOAuthProvider(callback);
      const client = await connect(flavour, provider);
      const me = await client.callTool({ name: 'whoami', arguments: {} });
      expect(me.structuredContent).toMatchObject({
        subject: String(githubId('alice')),
        clientId: provider.clientId,
        issuer: rig.issuer,
        scopes: ['notes:read', 'notes:write'],
      });
      expect(await client.callTool({ name: 'add_note', arguments: {} })).toMatchObject({
        content: [{ text: 'added' }],
      });
      // The tool calls the provider's API as alice with the upstream token, which never left the server.
      const user = await client.callTool({ name: 'provider_user', arguments: {} });
      expect(user.structuredContent).toMatchObject({ login: 'alice', provider: 'GitHub' });
      // The client holds the proxy's own token: an ES256 JWT for this resource, not the provider's.
      const token = provider.saved[0]?.access_token as string;
      const [header, payload] = token
        .split('.')
        .slice(0, 2)
        .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
      expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
      expect(payload).toMatchObject({
        iss: rig.issuer,
        aud: rig.resource,
        sub: String(githubId('alice')),
        client_id: provider.clientId,
      });
      expect(provider.saved[0]?.refresh_token).toBeTruthy();
      // The authorization request the SDK made: PKCE S256, this resource.
      const asked = provider.pending.searchParams;
      expect(asked.get('code_challenge_method')).toBe('S256');
      expect(asked.get('resource')).toBe(rig.resource);
    },
  );
});

describe('client ID metadata documents', () => {
  it.each<Flavour>(['v2-2026', 'v1'])(
    '%s names itself by its document URL: the proxy fetches and checks it, nothing is registered',
    async (flavour) => {
      const url = `https://client.test/${flavour}.json`;
      documentBodies.set(`/${flavour}.json`, documentFor(url));
      const provider = new MemoryOAuthProvider(callback, { clientMetadataUrl: url });
      const before = rig.logs.filter((line) => line.includes('client registered')).length;
      const client = await connect(flavour, provider);
      expect(provider.clientId).toBe(url);
      const me = await client.callTool({ name: 'whoami', arguments: {} });
      expect(me.structuredContent).toMatchObject({ clientId: url, subject: String(githubId('alice')) });
      expect(rig.logs.filter((line) => line.includes('client registered')).length).toBe(before);
    },
  );

  it('a document whose client_id is not its own URL is refused before any consent (no code, no token)', async () => {
    const url = 'https://client.test/impostor.json';
    documentBodies.set('/impostor.json', documentFor('https://client.test/someone-else.json'));
    const issued = rig.issued();
    const browser = new Browser();
    const page = await browser.open(authorizationUrl(url, callback.redirectUrl));
    expect(page.status).toBe(400);
    expect(page.html).toContain('invalid_client');
    expect(page.forms).toEqual([]);
    expect(rig.issued()).toBe(issued);
  });
});

describe('consent', () => {
  it('issues only the scopes the user left checked: a tool needing the other one answers 403', async () => {
    const provider = new MemoryOAuthProvider(callback);
    const client = await connect('v2-2026', provider, rig, { scopes: ['notes:read'] });
    expect(provider.saved[0]?.scope).toBe('notes:read');
    const me = await client.callTool({ name: 'whoami', arguments: {} });
    expect(me.structuredContent).toMatchObject({ scopes: ['notes:read'] });
    rig.calls.length = 0;
    const failure = await client.callTool({ name: 'add_note', arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(failure)).toMatch(/insufficient_scope|403|Unauthorized/i);
    expect(rig.calls).toEqual([]);
  });

  it('a denial sends the client access_denied and no code', async () => {
    const provider = new MemoryOAuthProvider(callback);
    const transport = new StreamableHTTPClientTransport(new URL(rig.url), {
      authProvider: provider as never,
    });
    const client = new Client({ name: 'deny', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(transport).catch(() => undefined);
    const issued = rig.issued();
    const params = await logIn(new Browser(), provider.pending.href, callback.redirectUrl, {
      decision: 'deny',
    });
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('code')).toBeNull();
    expect(params.get('iss')).toBe(rig.issuer);
    expect(rig.issued()).toBe(issued);
  });
});

/** A client ID metadata document for a public client with the loopback redirect URI. */
function documentFor(clientId: string): string {
  return JSON.stringify({
    client_id: clientId,
    client_name: 'Pier CIMD client',
    redirect_uris: [callback.redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
}

/** An authorization request as an MCP client builds it (PKCE S256, this resource). */
function authorizationUrl(clientId: string, redirectUri: string, on: NotesRig = rig): string {
  const url = new URL(`${on.issuer}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state: 'client-state',
    resource: on.resource,
  }).toString();
  return url.href;
}

describe("refresh across the provider token's expiry", () => {
  const rigs: NotesRig[] = [];
  afterAll(async () => {
    await Promise.all(rigs.map((r) => r.close()));
  });
  const shortRig = async (app: typeof SHORT, onPort: number) => {
    const r = await startNotes(
      onPort,
      { ...proxyOptions(app), accessTokenTtlSeconds: 2 },
      { userApi: upstream.github.userEndpoint },
    );
    rigs.push(r);
    return r;
  };

  // The proxy's tokens live 2 s (plus the 5 s clock tolerance of the verifier), the provider's 3 s.
  it('v2 (2026) and v1 keep calling a tool that uses the provider token for 10 s: both tokens expire and are refreshed', async () => {
    const r = await shortRig(SHORT, ports.short);
    const v2 = new MemoryOAuthProvider(callback);
    const v1 = new MemoryOAuthProvider(callback);
    const clients = [await connect('v2-2026', v2, r), await connect('v1', v1, r)];
    const tokenCalls = upstream.log.filter((line) => line === 'POST /token').length;
    const rejected = upstream.userCalls.filter((answer) => answer === '401').length;
    const until = Date.now() + 10_000;
    let rounds = 0;
    while (Date.now() < until) {
      const answers = await Promise.all(
        clients.map((client) => client.callTool({ name: 'provider_user', arguments: {} })),
      );
      for (const answer of answers)
        expect(answer.structuredContent, JSON.stringify(answer)).toMatchObject({ login: 'alice' });
      rounds++;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(rounds).toBeGreaterThan(8);
    // The clients refreshed the proxy's tokens (rotation: a new refresh token each time)…
    for (const provider of [v2, v1]) {
      expect(provider.saved.length).toBeGreaterThanOrEqual(2);
      const refreshTokens = provider.saved.map((t) => t.refresh_token);
      expect(new Set(refreshTokens).size).toBe(refreshTokens.length);
    }
    // …and the proxy refreshed the provider's (3 s) tokens behind them: never a stale one at the provider.
    expect(upstream.log.filter((line) => line === 'POST /token').length).toBeGreaterThan(tokenCalls + 2);
    expect(upstream.userCalls.filter((answer) => answer === '401').length).toBe(rejected);
  });

  it('negative control: without a provider refresh token, the login ends when the provider token expires', async () => {
    const r = await shortRig(NO_REFRESH, ports.noRefresh);
    const provider = new MemoryOAuthProvider(callback);
    const client = await connect('v2-2026', provider, r);
    expect(await client.callTool({ name: 'provider_user', arguments: {} })).toMatchObject({
      structuredContent: { login: 'alice' },
    });
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    const failed = await client.callTool({ name: 'provider_user', arguments: {} });
    expect(failed.isError, 'a call after the provider token expired must fail').toBe(true);
    expect(JSON.stringify(failed.content)).toMatch(/expired and could not be refreshed/);
    // And the proxy will not refresh a login whose provider token is gone.
    const refreshed = await refreshAt(
      r.issuer,
      provider.saved[0]?.refresh_token as string,
      provider.clientId as string,
    );
    expect(refreshed.status).toBe(400);
    const body = (await refreshed.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error: 'invalid_grant' });
    expect(body.access_token).toBeUndefined();
    expect(r.logs.some((line) => line.includes('login revoked') && line.includes('ended the login'))).toBe(
      true,
    );
  });
});

describe('revocation (RFC 7009)', () => {
  it('revoking the refresh token ends the login: the access token is refused at once and refresh fails', async () => {
    const provider = new MemoryOAuthProvider(callback);
    const client = await connect('v2-2026', provider);
    const tokens = provider.saved[0] as { access_token: string; refresh_token: string };
    const call = () => callTool(rig.url, 'whoami', tokens.access_token);
    expect((await call()).status).toBe(200);
    // Another client cannot revoke it.
    const stranger = await revokeAs('someone-else', tokens.refresh_token);
    expect(stranger.status).toBe(401);
    expect((await call()).status).toBe(200);
    // Its own client can.
    const revoked = await revokeAs(provider.clientId as string, tokens.refresh_token);
    expect(revoked.status).toBe(200);
    const after = await call();
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const refreshed = await refreshAt(rig.issuer, tokens.refresh_token, provider.clientId as string);
    expect(refreshed.status).toBe(400);
    const body = (await refreshed.json()) as Record<string, unknown>;
    expect(body.error).toBe('invalid_grant');
    expect(body.access_token).toBeUndefined();
    // The SDK client, on its next call, is sent back to log in.
    const failure = await client.callTool({ name: 'whoami', arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(failure)).toMatch(/Unauthorized|revoked/);
    // Unknown tokens are answered 200 too (RFC 7009 §2.2).
    expect((await revokeAs(provider.clientId as string, 'not-a-token')).status).toBe(200);
  });

  it('revoking the access token ends the login too', async () => {
    const provider = new MemoryOAuthProvider(callback);
    await connect('v1', provider);
    const tokens = provider.saved[0] as { access_token: string; refresh_token: string };
    expect((await revokeAs(provider.clientId as string, tokens.access_token)).status).toBe(200);
    const refreshed = await refreshAt(rig.issuer, tokens.refresh_token, provider.clientId as string);
    expect(((await refreshed.json()) as { error?: string }).error).toBe('invalid_grant');
  });
});

function revokeAs(clientId: string, token: string): Promise<Response> {
  return fetch(`${rig.issuer}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: clientId }),
  });
}

describe('OpenID Connect providers by issuer URL', () => {
  it.each([
    ['oidc()', () => oidc({ issuer: upstream.issuer, ...OIDC }), () => ports.oidc],
    ['google()', () => google({ ...GOOGLE, issuer: upstream.issuer }), () => ports.google],
  ] as const)(
    '%s: discovery, the ID token (signature, audience, nonce) names the user',
    async (_name, make, onPort) => {
      const provider = make();
      const r = await startNotes(
        onPort(),
        { ...proxyOptions(), upstream: provider },
        { userApi: upstream.github.userEndpoint },
      );
      try {
        const auth = new MemoryOAuthProvider(callback);
        const client = await connect('v2-legacy', auth, r);
        const me = await client.callTool({ name: 'whoami', arguments: {} });
        expect(me.structuredContent).toMatchObject({ subject: 'alice', issuer: r.issuer });
        expect(await client.callTool({ name: 'provider_user', arguments: {} })).toMatchObject({
          structuredContent: { login: 'alice', provider: provider.name },
        });
      } finally {
        await r.close();
      }
    },
  );
});
