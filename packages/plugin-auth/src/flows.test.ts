// The interactive flows, end to end against a real authorization server (oidc-provider) with the official
// clients' own OAuth machinery: authorization code + PKCE with dynamic client registration, client ID
// metadata documents, refresh of short-lived tokens over a 20-second loop. The test plays only the person
// at the browser (test-flows.ts): it follows the AS's redirects over HTTP and submits its login and
// consent pages; the code comes back to a loopback redirect URI served by a real server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { introspection } from './introspection.js';
import { jwt } from './jwt.js';
import {
  type AuthServer,
  CLIENTS,
  calls,
  clientToken,
  OPAQUE_SUFFIX,
  type Rig,
  signingKey,
  startAuthServer,
  startPier,
} from './test-as.js';
import { type Callback, MemoryOAuthProvider, startCallback, userAgent } from './test-flows.js';
import { type Answer, ask, initialize, LEGACY, legacyCall } from './test-http.js';

/** Where the client's metadata document lives, as the client names itself (CIMD requires https). */
const CLIENT_DOCUMENT = 'https://client.test/pier-client.json';

let as: AuthServer;
let callback: Callback;
let documents: Server;
/** Client metadata documents by path, served for real over loopback HTTP. */
const documentBodies = new Map<string, string>();
const documentHits: string[] = [];
const rigs: Rig[] = [];
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  callback = await startCallback();
  // The client's metadata document, served for real over loopback HTTP; the AS's fetch is pointed at it.
  documents = createServer((req, res) => {
    documentHits.push(req.url ?? '');
    const body = documentBodies.get(req.url ?? '');
    res.writeHead(body === undefined ? 404 : 200, {
      'content-type': 'application/json',
      'cache-control': 'max-age=60',
    });
    res.end(body ?? '{}');
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  const local = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  as = await startAuthServer({ documents: (url) => toLocal(url, local) });
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close().catch(() => undefined)));
  await Promise.all(rigs.splice(0).map((rig) => rig.server.close()));
});
afterAll(async () => {
  await as.close();
  await callback.close();
  documents.closeAllConnections();
  await new Promise((resolve) => documents.close(resolve));
});

/** The AS's fetch of `https://client.test/<path>` goes to the loopback document server instead. */
const toLocal = (url: string, local: string) =>
  url.startsWith('https://client.test/') ? `${local}${new URL(url).pathname}` : undefined;

type Flavour = 'v2-2026' | 'v2-legacy' | 'v1';

async function rig(server: AuthServer = as, sessions = false, more: Record<string, unknown> = {}) {
  const created = await startPier(
    () => ({
      authorizationServers: [server.issuer],
      scopesSupported: ['notes:read', 'notes:write'],
      ...more,
    }),
    { sessions },
  );
  rigs.push(created);
  return created;
}

/** A connected client of `flavour` that logged in through the code flow, and its provider. */
async function logIn(flavour: Flavour, url: string, provider: MemoryOAuthProvider) {
  const { client } = await logInWithTransport(flavour, url, provider);
  return client;
}

async function logInWithTransport(flavour: Flavour, url: string, provider: MemoryOAuthProvider) {
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
  // First attempt: no token; the SDK discovers, registers (or names its document), starts PKCE and asks
  // for the browser. Its connect fails with UnauthorizedError, as it documents.
  const first = make();
  let failure: unknown;
  try {
    await first.client.connect(first.transport as never);
  } catch (error) {
    failure = error;
  }
  expect(failure, `${flavour} should ask for a login first`).toBeDefined();
  expect(String(failure), String((failure as Error)?.stack)).toMatch(/Unauthorized/);
  if (flavour !== 'v1') expect(failure).toBeInstanceOf(UnauthorizedError);
  await first.client.close().catch(() => undefined);
  const params = await userAgent(provider.pending, callback);
  expect(params.get('code')).toBeTruthy();
  // The SDK exchanges the code (with the verifier, and `iss` checked per RFC 9207 where it can).
  if (flavour === 'v1') await (first.transport as V1Transport).finishAuth(params.get('code') as string);
  else await (first.transport as StreamableHTTPClientTransport).finishAuth(params);
  const second = make();
  await second.client.connect(second.transport as never);
  closers.push(() => second.client.close());
  return { client: second.client as Client, transport: second.transport };
}

describe('authorization code + PKCE with dynamic client registration', () => {
  it.each<[Flavour, boolean]>([
    ['v2-2026', false],
    ['v2-legacy', true],
    ['v1', true],
  ])(
    '%s: registers, logs alice in through the browser, exchanges the code and calls tools',
    async (flavour, sessions) => {
      const r = await rig(as, sessions);
      const provider = new MemoryOAuthProvider(callback);
      const logStart = as.log.length;
      const client = await logIn(flavour, r.url, provider);
      calls.length = 0;
      const answer = await client.callTool({ name: 'whoami', arguments: {} });
      expect(answer.structuredContent).toMatchObject({
        subject: 'alice',
        clientId: provider.clientId,
        issuer: as.issuer,
        scopes: ['notes:read', 'notes:write'],
      });
      expect(calls).toEqual(['whoami']);
      expect(await client.callTool({ name: 'add_note', arguments: {} })).toMatchObject({
        content: [{ text: 'added' }],
      });
      // What the AS saw: a registration, the authorization request with PKCE S256 for this resource, the
      // login and consent pages, the token exchange.
      const seen = as.log.slice(logStart);
      expect(seen).toContain('POST /reg');
      expect(seen).toContain('POST /token');
      expect(seen.filter((line) => line.startsWith('POST /interaction/'))).toHaveLength(2);
      const authorization = provider.pending.searchParams;
      expect(authorization.get('code_challenge_method')).toBe('S256');
      expect(authorization.get('resource')).toBe(r.resource);
      expect(authorization.get('client_id')).toBe(provider.clientId);
      // The access token is the AS's JWT for this resource, for alice.
      const token = provider.saved[0]?.access_token as string;
      const payload = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString());
      expect(payload).toMatchObject({ sub: 'alice', aud: r.resource, iss: as.issuer });
    },
  );
});

/** A client ID metadata document for a public client with the loopback redirect URI. */
const document = (clientId: string) =>
  JSON.stringify({
    client_id: clientId,
    client_name: 'Pier CIMD client',
    redirect_uris: [callback.redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });

describe('step-up in the code flow', () => {
  it.each<[Flavour, boolean]>([
    ['v2-2026', false],
    ['v2-legacy', true],
  ])(
    '%s: alice with notes:read calls add_note; the 403 sends her back to the browser for notes:write; the retry works',
    async (flavour, sessions) => {
      // The 401's hint asks for notes:read only, so the first login grants just that.
      const r = await rig(as, sessions, { challengeScopes: ['notes:read'] });
      // A CIMD client: the SDK registers a DCR client for the scope of its first request, which the AS
      // then holds it to; a metadata document without `scope` leaves the grant to the consent.
      const url = 'https://client.test/step-up-client.json';
      documentBodies.set('/step-up-client.json', document(url));
      const provider = new MemoryOAuthProvider(callback, { clientMetadataUrl: url });
      const { client, transport } = await logInWithTransport(flavour, r.url, provider);
      expect(provider.saved[0]?.scope).toBe('notes:read');
      calls.length = 0;
      let failure: unknown;
      try {
        await client.callTool({ name: 'add_note', arguments: {} });
      } catch (error) {
        failure = error;
      }
      // The SDK answered the 403 insufficient_scope with a new authorization request for the union.
      expect(failure).toBeInstanceOf(UnauthorizedError);
      expect(calls).toEqual([]);
      expect(provider.authorizations).toHaveLength(2);
      expect(provider.pending.searchParams.get('scope')?.split(' ').sort()).toEqual([
        'notes:read',
        'notes:write',
      ]);
      await (transport as StreamableHTTPClientTransport).finishAuth(
        await userAgent(provider.pending, callback),
      );
      expect(provider.saved.at(-1)?.scope?.split(' ').sort()).toEqual(['notes:read', 'notes:write']);
      const again = new Client(
        { name: flavour, version: '1.0.0' },
        flavour === 'v2-2026' ? { versionNegotiation: { mode: 'auto' } } : {},
      );
      await again.connect(
        new StreamableHTTPClientTransport(new URL(r.url), { authProvider: provider as never }),
      );
      closers.push(() => again.close());
      expect(await again.callTool({ name: 'add_note', arguments: {} })).toMatchObject({
        content: [{ text: 'added' }],
      });
      expect(calls).toEqual(['add_note']);
    },
  );
});

describe('client ID metadata documents (CIMD)', () => {
  it.each<[Flavour, boolean]>([
    ['v2-2026', false],
    ['v1', true],
  ])(
    '%s: the client is named by its document URL; the AS fetches it, nothing is registered',
    async (flavour, sessions) => {
      documentBodies.set('/pier-client.json', document(CLIENT_DOCUMENT));
      const r = await rig(as, sessions);
      const provider = new MemoryOAuthProvider(callback, { clientMetadataUrl: CLIENT_DOCUMENT });
      const logStart = as.log.length;
      const hitsStart = documentHits.length;
      const client = await logIn(flavour, r.url, provider);
      expect(provider.pending.searchParams.get('client_id')).toBe(CLIENT_DOCUMENT);
      const answer = await client.callTool({ name: 'whoami', arguments: {} });
      expect(answer.structuredContent).toMatchObject({ subject: 'alice', clientId: CLIENT_DOCUMENT });
      expect(as.log.slice(logStart)).not.toContain('POST /reg');
      // Fetched at most once: oidc-provider caches the document for its max-age (60 s here).
      expect(documentHits.length - hitsStart).toBeLessThanOrEqual(1);
      expect(documentHits).toContain('/pier-client.json');
    },
  );

  it('negative control: a document whose client_id is not its own URL is refused by the AS; no token, no call', async () => {
    const url = 'https://client.test/impostor.json';
    documentBodies.set('/impostor.json', document('https://client.test/someone-else.json'));
    const r = await rig(as);
    const provider = new MemoryOAuthProvider(callback, { clientMetadataUrl: url });
    const client = new Client({ name: 'cimd', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    const transport = new StreamableHTTPClientTransport(new URL(r.url), { authProvider: provider as never });
    await expect(client.connect(transport)).rejects.toThrow(/Unauthorized/);
    await client.close().catch(() => undefined);
    await expect(userAgent(provider.pending, callback)).rejects.toThrow(/the user agent got 400/);
    expect(provider.saved).toEqual([]);
  });
});

describe('refresh: 4-second tokens over a 20-second loop', () => {
  it('v2 (2026-07-28 and 2025 sessions) and v1 refresh on expiry and never surface a 401; without a refresh token the call fails', async () => {
    const shortLived = await startAuthServer({ accessTokenTtl: 4 });
    closers.push(() => shortLived.close());
    // Tolerance 1 s: the tokens really expire within the loop.
    const verifier = () => ({ verifier: jwt({ clockToleranceSeconds: 1 }) });
    const stateless = await rig(shortLived, false, verifier());
    const sessionful = await rig(shortLived, true, verifier());
    const participants = await Promise.all(
      (
        [
          ['v2-2026', stateless, true],
          ['v2-legacy', sessionful, true],
          ['v1', sessionful, true],
          ['v2-2026', stateless, false],
        ] as const
      ).map(async ([flavour, r, keepRefreshToken]) => {
        const provider = new MemoryOAuthProvider(callback, { keepRefreshToken });
        const { client, transport } = await logInWithTransport(flavour, r.url, provider);
        return { flavour, keepRefreshToken, provider, client, transport };
      }),
    );
    const LOOP_MS = 20_000;
    const MAX_CALLS = 60;
    const results = await Promise.all(
      participants.map(async ({ client, transport, keepRefreshToken }) => {
        const sessionBefore = (transport as { sessionId?: string }).sessionId;
        const started = Date.now();
        let ok = 0;
        let failure: unknown;
        for (let i = 0; i < MAX_CALLS && Date.now() - started < LOOP_MS; i++) {
          try {
            const answer = await client.callTool({ name: 'whoami', arguments: {} });
            expect(answer.structuredContent).toMatchObject({ subject: 'alice' });
            ok++;
          } catch (error) {
            failure = error;
            if (!keepRefreshToken) break;
          }
          await new Promise((resolve) => setTimeout(resolve, 400));
        }
        return { ok, failure, sessionBefore, sessionAfter: (transport as { sessionId?: string }).sessionId };
      }),
    );
    for (const [i, { flavour, keepRefreshToken, provider }] of participants.entries()) {
      const { ok, failure, sessionBefore, sessionAfter } = results[i] as (typeof results)[number];
      if (keepRefreshToken) {
        expect(failure, `${flavour}: ${String(failure)}`).toBeUndefined();
        expect(ok).toBeGreaterThanOrEqual(10);
        // The code exchange, then at least two refreshes, each a new access token.
        expect(provider.saved.length, flavour).toBeGreaterThanOrEqual(3);
        expect(new Set(provider.saved.map((t) => t.access_token)).size).toBe(provider.saved.length);
        // A 2025 session survives the refreshes: the same principal with a new token keeps it.
        expect(sessionAfter).toBe(sessionBefore);
      } else {
        // Negative control: the same client without a refresh token fails once its token expired.
        expect(String(failure)).toMatch(/Unauthorized|401/);
        expect(ok).toBeGreaterThanOrEqual(1);
        expect(provider.saved).toHaveLength(1);
      }
    }
    // Pier did refuse expired tokens: the refreshes were forced by real expiry, and never reached a caller.
    const refusals = [...stateless.logs, ...sessionful.logs].join('');
    expect(refusals).toMatch(/request refused.*reason=expired/);
  }, 90_000);
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const metadataOf = (r: Rig) => {
  const url = new URL(r.resource);
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`;
};
function expectInvalidToken(answer: Answer, r: Rig) {
  expect(answer.status).toBe(401);
  expect(answer.headers['cache-control']).toBe('no-store');
  const challenge = String(answer.headers['www-authenticate']);
  expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"\r\n]+"/);
  expect(challenge).toContain(`resource_metadata="${metadataOf(r)}"`);
  expect(answer.json).toMatchObject({ error: 'invalid_token' });
}

/**
 * `token` refused on a 2025 sessionful endpoint capped at one session: initialize and a tool call both get
 * 401 invalid_token, no session id, no handler run; then `good` opens the one session the cap allows,
 * which proves the refused initialize created none.
 */
async function expectRefusedWithoutSession(r: Rig, token: string, good: string) {
  calls.length = 0;
  const opened = await ask(r.url, { headers: { ...LEGACY, ...bearer(token) }, body: initialize() });
  expectInvalidToken(opened, r);
  expect(opened.headers['mcp-session-id']).toBeUndefined();
  expectInvalidToken(
    await ask(r.url, { headers: { ...LEGACY, ...bearer(token) }, body: legacyCall('whoami') }),
    r,
  );
  expect(calls).toEqual([]);
  const mine = await ask(r.url, { headers: { ...LEGACY, ...bearer(good) }, body: initialize() });
  expect(mine.status).toBe(200);
  expect(mine.headers['mcp-session-id']).toBeDefined();
  expect((await ask(r.url, { headers: { ...LEGACY, ...bearer(good) }, body: initialize() })).status).toBe(
    503,
  );
}

/** Opens a 2025 session with `token`, calls whoami on it, and closes it: the statuses of the three. */
async function openCallClose(r: Rig, token: string): Promise<number[]> {
  const opened = await ask(r.url, { headers: { ...LEGACY, ...bearer(token) }, body: initialize() });
  const on = {
    ...LEGACY,
    ...bearer(token),
    'mcp-session-id': String(opened.headers['mcp-session-id']),
    'mcp-protocol-version': '2025-11-25',
  };
  const called = await ask(r.url, { headers: on, body: legacyCall('whoami') });
  const closed = await ask(r.url, { method: 'DELETE', headers: on });
  return [opened.status, called.status, closed.status];
}

describe('rejections that need the code flow or a restarted AS', () => {
  it('a real ID token from the code flow is refused as an access token (typ, and aud is the client)', async () => {
    const r = await startPier(() => ({ authorizationServers: [as.issuer] }), {
      sessions: true,
      maxSessions: 1,
    });
    rigs.push(r);
    // The SDK's own auth(), asking for openid besides the resource scope: the AS issues an ID token too.
    const provider = new MemoryOAuthProvider(callback);
    expect(await auth(provider as never, { serverUrl: r.url, scope: 'openid notes:read' })).toBe('REDIRECT');
    const params = await userAgent(provider.pending, callback);
    expect(
      await auth(provider as never, {
        serverUrl: r.url,
        authorizationCode: params.get('code') as string,
        iss: params.get('iss') as string,
      }),
    ).toBe('AUTHORIZED');
    const { id_token: idToken, access_token: accessToken } = provider.saved[0] ?? {};
    expect(idToken?.split('.')).toHaveLength(3);
    const header = JSON.parse(
      Buffer.from((idToken as string).split('.')[0] as string, 'base64url').toString(),
    );
    const claims = JSON.parse(
      Buffer.from((idToken as string).split('.')[1] as string, 'base64url').toString(),
    );
    expect(header.typ).not.toBe('at+jwt');
    expect(claims).toMatchObject({ iss: as.issuer, sub: 'alice', aud: provider.clientId });
    await expectRefusedWithoutSession(r, idToken as string, accessToken as string);
    // With allowJwtTyp (identity providers outside RFC 9068) the audience still refuses it.
    const loose = await startPier(
      () => ({ authorizationServers: [as.issuer], verifier: jwt({ allowJwtTyp: true }) }),
      { sessions: true, maxSessions: 1 },
    );
    rigs.push(loose);
    const looseToken = await clientToken(as, CLIENTS.reader, loose.resource);
    await expectRefusedWithoutSession(loose, idToken as string, looseToken);
    expect(loose.logs.join('')).toMatch(/request refused.*reason=aud/);
  });

  it('key rotation: the AS restarts with a new key; one key set refetch admits new tokens, old ones are refused', async () => {
    const before = await startAuthServer();
    const port = Number(new URL(before.issuer).port);
    const r = await startPier(
      () => ({ authorizationServers: [before.issuer], verifier: jwt({ cooldownMs: 1_000 }) }),
      { sessions: true, maxSessions: 1 },
    );
    rigs.push(r);
    const oldToken = await clientToken(before, CLIENTS.reader, r.resource);
    // Negative control: before the rotation the old token is good.
    calls.length = 0;
    expect(await openCallClose(r, oldToken)).toEqual([200, 200, 200]);
    expect(calls).toEqual(['whoami']);
    await before.close();
    const after = await startAuthServer({
      port,
      keys: { es256: await signingKey('ES256', 'es-2'), rs256: await signingKey('RS256', 'rs-2') },
    });
    closers.push(() => after.close());
    expect(after.issuer).toBe(before.issuer);
    const newToken = await clientToken(after, CLIENTS.reader, r.resource);
    expect(JSON.parse(Buffer.from(newToken.split('.')[0] as string, 'base64url').toString()).kid).toBe(
      'es-2',
    );
    // Past the unknown-kid cooldown since the first key set fetch.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const jwksFetches = () => after.log.filter((line) => line === 'GET /jwks').length;
    calls.length = 0;
    expect(await openCallClose(r, newToken)).toEqual([200, 200, 200]);
    expect(calls).toEqual(['whoami']);
    expect(jwksFetches()).toBe(1);
    // The old key is gone from the refetched set: its tokens are refused, and cost no further fetch.
    await expectRefusedWithoutSession(r, oldToken, newToken);
    expect(jwksFetches()).toBe(1);
    expect(r.logs.join('')).toMatch(/request refused.*reason=kid/);
  });

  it('introspection: a token revoked at the real revocation endpoint is active:false, so 401 invalid_token', async () => {
    const r = await startPier(
      () => ({
        authorizationServers: [as.issuer],
        verifier: introspection({
          clientId: CLIENTS.rs.client_id,
          clientSecret: CLIENTS.rs.client_secret,
          cacheTtlSeconds: 0,
        }),
      }),
      { sessions: true, maxSessions: 1 },
      [],
      `/mcp${OPAQUE_SUFFIX}`,
    );
    rigs.push(r);
    const revoked = await clientToken(as, CLIENTS.writer, r.resource);
    const basic = Buffer.from(`${CLIENTS.writer.client_id}:${CLIENTS.writer.client_secret}`).toString(
      'base64',
    );
    const revocation = await fetch(`${as.issuer}/token/revocation`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: revoked }),
    });
    expect(revocation.status).toBe(200);
    // What the AS itself now says of it.
    const rs = Buffer.from(`${CLIENTS.rs.client_id}:${CLIENTS.rs.client_secret}`).toString('base64');
    const introspected = await fetch(`${as.issuer}/token/introspection`, {
      method: 'POST',
      headers: { authorization: `Basic ${rs}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: revoked }),
    });
    expect(await introspected.json()).toEqual({ active: false });
    await expectRefusedWithoutSession(r, revoked, await clientToken(as, CLIENTS.writer, r.resource));
    expect(r.logs.join('')).toMatch(/request refused.*reason=inactive/);
  });
});
