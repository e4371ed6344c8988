// Every rejection of the design note's matrix against a real authorization server: status, challenge,
// handler never run, nothing created; each beside its negative control (a good token, or auth off).

import { createServer as createHttpServer } from 'node:http';
import { createServer } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { createNodeHandler } from '@pier/transport-http';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TokenRejectedError } from './errors.js';
import { introspection } from './introspection.js';
import { jwt } from './jwt.js';
import { authPlugin } from './plugin.js';
import { custom } from './simple-verifiers.js';
import {
  type AuthServer,
  CLIENTS,
  calls,
  clientToken,
  freePort,
  mint,
  notesDeclaration,
  OPAQUE_SUFFIX,
  type Rig,
  startAuthServer,
  startPier,
} from './test-as.js';
import { type Answer, ask, call, initialize, LEGACY, legacyCall, modern } from './test-http.js';

let as: AuthServer;
const rigs: Rig[] = [];
beforeAll(async () => {
  as = await startAuthServer();
});
afterEach(async () => {
  as.down = false;
  await Promise.all(rigs.splice(0).map((rig) => rig.server.close()));
});
afterAll(() => as.close());

type Options = Parameters<typeof startPier>[0];
async function rig(
  options: Options = () => ({ authorizationServers: [as.issuer] }),
  transport: Parameters<typeof startPier>[1] = {},
  extra: Parameters<typeof startPier>[2] = [],
) {
  const created = await startPier(options, transport, extra);
  rigs.push(created);
  return created;
}
const defaults =
  (more: Record<string, unknown> = {}) =>
  () => ({
    authorizationServers: [as.issuer],
    scopesSupported: ['notes:read', 'notes:write'],
    ...more,
  });

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
async function whoami(url: string, headers: Record<string, string | string[]>): Promise<Answer> {
  const { body, headers: base } = call('whoami');
  return ask(url, { headers: { ...base, ...headers }, body });
}
function metadataOf(rig: Rig): string {
  const url = new URL(rig.resource);
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`;
}
/** `token` with its payload swapped for an admin's, under the original header and signature. */
function forgedAdmin(server: AuthServer, rig: Rig, token: string): string {
  const [header, , signature] = token.split('.');
  const payload = Buffer.from(
    JSON.stringify({
      iss: server.issuer,
      aud: rig.resource,
      sub: 'admin',
      scope: 'notes:admin',
      exp: 9999999999,
    }),
  ).toString('base64url');
  return `${header}.${payload}.${signature}`;
}

function expectInvalidToken(answer: Answer, rig: Rig) {
  expect(answer.status).toBe(401);
  expect(answer.headers['cache-control']).toBe('no-store');
  const challenge = String(answer.headers['www-authenticate']);
  expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"\r\n]+"/);
  expect(challenge).toContain(`resource_metadata="${metadataOf(rig)}"`);
  expect(answer.json).toMatchObject({ error: 'invalid_token' });
}

describe('A. discovery', () => {
  it('a request without credentials: bare 401 (no error code) with resource_metadata and a scope hint', async () => {
    const r = await rig(defaults());
    calls.length = 0;
    const answer = await whoami(r.url, {});
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${metadataOf(r)}", scope="notes:read notes:write"`,
    );
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(calls).toEqual([]);
    // Negative control: auth off answers the same request.
    const open = await rig(false);
    expect((await whoami(open.url, {})).status).toBe(200);
  });

  it('serves RFC 9728 metadata at the path-aware URL and the root, GET/HEAD/OPTIONS, 405 otherwise', async () => {
    const r = await rig(
      defaults({ resourceName: 'Notes', resourceDocumentation: 'https://docs.example.com/notes' }),
    );
    const doc = await ask(metadataOf(r), { method: 'GET' });
    expect(doc.status).toBe(200);
    expect(doc.json).toEqual({
      resource: r.resource,
      authorization_servers: [as.issuer],
      scopes_supported: ['notes:read', 'notes:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Notes',
      resource_documentation: 'https://docs.example.com/notes',
    });
    expect(doc.headers['access-control-allow-origin']).toBe('*');
    expect(doc.headers['cache-control']).toBe('public, max-age=3600');
    const root = await ask(r.url, { method: 'GET', path: '/.well-known/oauth-protected-resource' });
    expect(root.json).toEqual(doc.json);
    const head = await ask(metadataOf(r), { method: 'HEAD' });
    expect([head.status, head.text]).toEqual([200, '']);
    expect((await ask(metadataOf(r), { method: 'OPTIONS' })).status).toBe(204);
    const post = await ask(metadataOf(r), { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD, OPTIONS');
    // Open with garbage credentials too: the metadata is never gated.
    expect(
      (await ask(metadataOf(r), { method: 'GET', headers: { authorization: 'Bearer %%%' } })).status,
    ).toBe(200);
    expect(
      (await ask(r.url, { method: 'GET', path: '/.well-known/oauth-authorization-server' })).status,
    ).toBe(404);
  });

  it('rootMetadata: false serves the path-aware copy only', async () => {
    const r = await rig(defaults({ rootMetadata: false }));
    expect((await ask(metadataOf(r), { method: 'GET' })).status).toBe(200);
    expect((await ask(r.url, { method: 'GET', path: '/.well-known/oauth-protected-resource' })).status).toBe(
      404,
    );
  });

  it('with CORS on, challenges are readable by browsers and a tokenless preflight passes', async () => {
    const r = await rig(defaults(), { cors: true });
    const answer = await whoami(r.url, { origin: 'http://app.test' });
    expect(answer.status).toBe(401);
    expect(String(answer.headers['access-control-expose-headers'])).toContain('WWW-Authenticate');
    const preflight = await ask(r.url, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://app.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
  });
});

describe('B. token negatives: 401 invalid_token, the handler never runs', () => {
  const cases: [string, (r: Rig) => Promise<Record<string, string | string[]>>][] = [
    ['Basic credentials', async () => ({ authorization: 'Basic dXNlcjpwYXNz' })],
    ['an empty bearer token', async () => ({ authorization: 'Bearer ' })],
    ['illegal characters', async () => ({ authorization: 'Bearer abc"def' })],
    ['a token over maxTokenLength', async () => bearer('a'.repeat(9000))],
    ['not a JWT', async () => bearer('opaque-garbage-token')],
    [
      'an expired token',
      async (r) =>
        bearer(await mint(as, r.resource, { payload: { exp: Math.floor(Date.now() / 1000) - 120 } })),
    ],
    [
      'nbf in the future',
      async (r) =>
        bearer(await mint(as, r.resource, { payload: { nbf: Math.floor(Date.now() / 1000) + 600 } })),
    ],
    [
      'iat far in the future',
      async (r) =>
        bearer(await mint(as, r.resource, { payload: { iat: Math.floor(Date.now() / 1000) + 600 } })),
    ],
    ['no exp', async (r) => bearer(await mint(as, r.resource, { payload: { exp: undefined } as never }))],
    [
      'a wrong issuer',
      async (r) => bearer(await mint(as, r.resource, { payload: { iss: 'http://127.0.0.1:1' } })),
    ],
    [
      'a real AS token for another resource',
      async () => bearer(await clientToken(as, CLIENTS.writer, 'http://127.0.0.1:9/other')),
    ],
    [
      'typ JWT (an ID token shape)',
      async (r) => bearer(await mint(as, r.resource, { header: { typ: 'JWT' } })),
    ],
    [
      'a DPoP-bound token sent as Bearer',
      async (r) => bearer(await mint(as, r.resource, { payload: { cnf: { jkt: 'x'.repeat(43) } } })),
    ],
    [
      'a tampered payload',
      async (r) => {
        return bearer(forgedAdmin(as, r, await mint(as, r.resource)));
      },
    ],
    [
      'alg none',
      async (r) => {
        const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url');
        const payload = Buffer.from(
          JSON.stringify({ iss: as.issuer, aud: r.resource, sub: 'u', exp: 9999999999 }),
        ).toString('base64url');
        return bearer(`${header}.${payload}.`);
      },
    ],
    [
      'HS256 signed with the RSA public key',
      async (r) => {
        const secret = new TextEncoder().encode(JSON.stringify(as.keys.rs256.publicJwk));
        const token = await new SignJWT({ iss: as.issuer, aud: r.resource, sub: 'u', client_id: 'c' })
          .setProtectedHeader({ alg: 'HS256', kid: as.keys.rs256.kid, typ: 'at+jwt' })
          .setExpirationTime('5m')
          .sign(secret);
        return bearer(token);
      },
    ],
    [
      'an unknown kid',
      async (r) => {
        const { privateKey } = await generateKeyPair('ES256');
        return bearer(
          await mint(as, r.resource, { key: { kid: 'rogue', alg: 'ES256', privateKey, publicJwk: {} } }),
        );
      },
    ],
    [
      'a key not published, with the published kid',
      async (r) => {
        const { privateKey } = await generateKeyPair('ES256');
        return bearer(await mint(as, r.resource, { key: { ...as.keys.es256, privateKey } }));
      },
    ],
  ];

  it.each(cases)('%s', async (_, credentials) => {
    const r = await rig(defaults());
    calls.length = 0;
    expectInvalidToken(await whoami(r.url, await credentials(r)), r);
    expect(calls).toEqual([]);
  });

  it('negative control: a real AS token for this resource, and a minted one, are accepted', async () => {
    const r = await rig(defaults());
    calls.length = 0;
    expect((await whoami(r.url, bearer(await clientToken(as, CLIENTS.reader, r.resource)))).status).toBe(200);
    expect((await whoami(r.url, bearer(await mint(as, r.resource)))).status).toBe(200);
    expect((await whoami(r.url, bearer(await mint(as, r.resource, { key: as.keys.rs256 })))).status).toBe(
      200,
    );
    expect(calls).toEqual(['whoami', 'whoami', 'whoami']);
  });

  it("a verified token's signature under another payload is refused, the verified token still cached", async () => {
    const r = await rig(defaults());
    calls.length = 0;
    const good = await mint(as, r.resource);
    // The second request is answered from the verified-token cache, keyed by the token's last characters.
    expect((await whoami(r.url, bearer(good))).status).toBe(200);
    expect((await whoami(r.url, bearer(good))).status).toBe(200);
    expectInvalidToken(await whoami(r.url, bearer(forgedAdmin(as, r, good))), r);
    expect((await whoami(r.url, bearer(good))).status).toBe(200);
    expect(calls).toEqual(['whoami', 'whoami', 'whoami']);
  });

  it('aud = [ours, foreign] is accepted by default and refused under strictAudience', async () => {
    const loose = await rig(defaults());
    const token = async (r: Rig) =>
      bearer(await mint(as, r.resource, { payload: { aud: [r.resource, 'https://other.example.com'] } }));
    expect((await whoami(loose.url, await token(loose))).status).toBe(200);
    const strict = await rig(defaults({ verifier: jwt({ strictAudience: true }) }));
    expectInvalidToken(await whoami(strict.url, await token(strict)), strict);
  });

  it('typ JWT is accepted with allowJwtTyp (identity providers outside RFC 9068); the audience still binds', async () => {
    const r = await rig(defaults({ verifier: jwt({ allowJwtTyp: true }) }));
    expect((await whoami(r.url, bearer(await mint(as, r.resource, { header: { typ: 'JWT' } })))).status).toBe(
      200,
    );
    const idToken = await mint(as, r.resource, { header: { typ: 'JWT' }, payload: { aud: 'writer-app' } });
    expectInvalidToken(await whoami(r.url, bearer(idToken)), r);
  });
});

describe('B. one method only: 400 invalid_request, the token never accepted', () => {
  it.each([
    [
      'two Authorization headers',
      (t: string) => ({ headers: { authorization: [`Bearer ${t}`, `Bearer ${t}`] } }),
    ],
    ['access_token in the query alone', (t: string) => ({ query: `?access_token=${t}`, headers: {} })],
    ['header and query at once', (t: string) => ({ query: `?access_token=${t}`, headers: bearer(t) })],
  ])('%s', async (_, shape) => {
    const r = await rig(defaults());
    const token = await clientToken(as, CLIENTS.writer, r.resource);
    // Negative control, and the token in the verified-token cache: its fast path checks the method too.
    expect((await whoami(r.url, bearer(token))).status).toBe(200);
    const { headers, query } = shape(token) as { headers: Record<string, string | string[]>; query?: string };
    const { body, headers: base } = call('whoami');
    calls.length = 0;
    const answer = await ask(`${r.url}${query ?? ''}`, { headers: { ...base, ...headers }, body });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'invalid_request' });
    expect(String(answer.headers['www-authenticate'])).toMatch(/^Bearer error="invalid_request"/);
    expect(answer.text).not.toContain(token);
    expect(calls).toEqual([]);
  });
});

describe('B. introspection (opaque tokens)', () => {
  it('accepts an active token for this resource; refuses a revoked one and an unknown one', async () => {
    const r = await startPier(
      () => ({
        authorizationServers: [as.issuer],
        verifier: introspection({
          clientId: CLIENTS.rs.client_id,
          clientSecret: CLIENTS.rs.client_secret,
          cacheTtlSeconds: 0,
        }),
      }),
      {},
      [],
      `/mcp${OPAQUE_SUFFIX}`,
    );
    rigs.push(r);
    const token = await clientToken(as, CLIENTS.writer, r.resource);
    expect(token.split('.')).toHaveLength(1);
    calls.length = 0;
    const ok = await whoami(r.url, bearer(token));
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('writer-app');
    await fetch(`${as.issuer}/token/revocation`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${CLIENTS.writer.client_id}:${CLIENTS.writer.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token }),
    });
    expectInvalidToken(await whoami(r.url, bearer(token)), r);
    expectInvalidToken(await whoami(r.url, bearer('never-issued-token')), r);
    expect(calls).toEqual(['whoami']);
  });
});

describe('C. keys', () => {
  it('a flood of 100 unknown-kid tokens costs the AS at most one key set refetch', async () => {
    const r = await rig(defaults());
    expect((await whoami(r.url, bearer(await mint(as, r.resource)))).status).toBe(200);
    const jwksFetches = () => as.log.filter((line) => line === 'GET /jwks').length;
    const before = jwksFetches();
    const { privateKey } = await generateKeyPair('ES256');
    const tokens = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        mint(as, r.resource, { key: { kid: `rogue-${i}`, alg: 'ES256', privateKey, publicJwk: {} } }),
      ),
    );
    const answers = await Promise.all(tokens.map((token) => whoami(r.url, bearer(token))));
    expect(answers.every((answer) => answer.status === 401)).toBe(true);
    expect(jwksFetches() - before).toBeLessThanOrEqual(1);
  });

  it('the key set out of reach: 503 (not 401), no challenge, handler not run; back when the AS is', async () => {
    const r = await rig(defaults());
    const token = await mint(as, r.resource);
    as.down = true;
    calls.length = 0;
    const answer = await whoami(r.url, bearer(token));
    expect(answer.status).toBe(503);
    expect(answer.headers['www-authenticate']).toBeUndefined();
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.json).toMatchObject({ error: 'temporarily_unavailable' });
    expect(calls).toEqual([]);
    as.down = false;
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect((await whoami(r.url, bearer(token))).status).toBe(200);
  });

  it('an unreachable introspection endpoint is a 503 too', async () => {
    const r = await rig(() => ({
      authorizationServers: [as.issuer],
      verifier: introspection({
        clientId: 'x',
        clientSecret: 'y',
        endpoint: 'http://127.0.0.1:1/introspect',
        timeoutMs: 500,
      }),
    }));
    expect((await whoami(r.url, bearer('some-opaque-token'))).status).toBe(503);
  });
});

describe('D. scopes with real tokens', () => {
  const scoped = defaults({ implies: { 'notes:admin': ['notes:write', 'notes:read'] } });

  it('notes:read may list but not add: 403 naming notes:write plus the granted notes:read; admin implies both', async () => {
    const r = await rig(scoped);
    const reader = bearer(await clientToken(as, CLIENTS.reader, r.resource));
    calls.length = 0;
    const list = call('list_notes');
    expect((await ask(r.url, { headers: { ...list.headers, ...reader }, body: list.body })).status).toBe(200);
    const add = call('add_note');
    const refused = await ask(r.url, { headers: { ...add.headers, ...reader }, body: add.body });
    expect(refused.status).toBe(403);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(refused.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", error_description="This operation requires the scopes notes:write", scope="notes:write notes:read", resource_metadata="${metadataOf(r)}"`,
    );
    // 2025-era, same answer.
    const legacy = await ask(r.url, { headers: { ...LEGACY, ...reader }, body: legacyCall('add_note') });
    expect(legacy.status).toBe(403);
    expect(legacy.headers['www-authenticate']).toBe(refused.headers['www-authenticate']);
    expect(calls).toEqual(['list_notes']);
    const admin = bearer(await clientToken(as, CLIENTS.admin, r.resource));
    expect((await ask(r.url, { headers: { ...add.headers, ...admin }, body: add.body })).status).toBe(200);
    expect(calls).toEqual(['list_notes', 'add_note']);
  });

  it("mounted by an application under /api: the 401 and the 403 name the metadata under the app's prefix, where it is served", async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/api/mcp`;
    const server = createServer(
      notesDeclaration([authPlugin({ resource, ...scoped() } as Parameters<typeof authPlugin>[0])]),
      { handleSignals: false, logLevel: 'error' },
    );
    const handler = createNodeHandler(server, { basePath: '/api' });
    const app = createHttpServer(handler);
    await new Promise<void>((resolve) => app.listen(port, '127.0.0.1', resolve));
    try {
      const mounted = `http://127.0.0.1:${port}/api/.well-known/oauth-protected-resource/api/mcp`;
      const list = call('list_notes');
      const bare = await ask(resource, list);
      expect(bare.status).toBe(401);
      expect(bare.headers['www-authenticate']).toContain(`resource_metadata="${mounted}"`);
      const metadata = await fetch(mounted);
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toMatchObject({ resource });
      // The step-up 403 (from ctx.auth's resourceMetadataUrl) names the same URL.
      const reader = bearer(await clientToken(as, CLIENTS.reader, resource));
      const add = call('add_note');
      const refused = await ask(resource, { headers: { ...add.headers, ...reader }, body: add.body });
      expect(refused.status).toBe(403);
      expect(refused.headers['www-authenticate']).toContain(`resource_metadata="${mounted}"`);
    } finally {
      await new Promise((resolve) => app.close(resolve));
      await handler.close();
    }
  });

  it('resources/read and prompts/get are gated like tools', async () => {
    const r = await rig(scoped);
    const writeOnly = bearer(await mint(as, r.resource, { payload: { scope: 'notes:write' } }));
    calls.length = 0;
    for (const { body, headers } of [
      modern('resources/read', { uri: 'notes://all' }),
      modern('prompts/get', { name: 'summarize' }),
    ]) {
      const answer = await ask(r.url, { headers: { ...headers, ...writeOnly }, body });
      expect(answer.status).toBe(403);
      expect(String(answer.headers['www-authenticate'])).toContain('scope="notes:read notes:write"');
    }
    expect(calls).toEqual([]);
  });

  it('endpoint-wide requiredScopes: 403 before anything, with the hierarchy honoured', async () => {
    const r = await rig(
      defaults({ requiredScopes: ['notes:read'], implies: { 'notes:admin': ['notes:read'] } }),
    );
    const none = bearer(await mint(as, r.resource, { payload: { scope: 'other' } }));
    const answer = await whoami(r.url, none);
    expect(answer.status).toBe(403);
    expect(String(answer.headers['www-authenticate'])).toContain('scope="notes:read"');
    expect(
      (await whoami(r.url, bearer(await mint(as, r.resource, { payload: { scope: 'notes:admin' } })))).status,
    ).toBe(200);
    // The bare 401's hint is the required scopes.
    expect(String((await whoami(r.url, {})).headers['www-authenticate'])).toContain('scope="notes:read"');
  });

  it('2026-07-28 header spoof: Mcp-Name says list_notes, the body calls add_note: never executed', async () => {
    const r = await rig(scoped);
    const reader = bearer(await clientToken(as, CLIENTS.reader, r.resource));
    const { body, headers } = call('add_note');
    calls.length = 0;
    const answer = await ask(r.url, { headers: { ...headers, 'mcp-name': 'list_notes', ...reader }, body });
    expect([400, 403]).toContain(answer.status);
    expect(calls).toEqual([]);
  });
});

describe('F. 2025 sessions belong to the principal that opened them', () => {
  it("another client's valid token gets 404 on POST, GET and DELETE; the owner keeps the session with a new token", async () => {
    const r = await rig(defaults(), { sessions: true });
    const alice = bearer(await clientToken(as, CLIENTS.reader, r.resource));
    const bob = bearer(await clientToken(as, CLIENTS.writer, r.resource));
    const opened = await ask(r.url, { headers: { ...LEGACY, ...alice }, body: initialize() });
    const sid = String(opened.headers['mcp-session-id']);
    const on = (creds: Record<string, string>) => ({
      ...LEGACY,
      ...creds,
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-11-25',
    });
    calls.length = 0;
    const unknown = await ask(r.url, {
      headers: { ...on(bob), 'mcp-session-id': 'no-such-session' },
      body: legacyCall('whoami'),
    });
    const post = await ask(r.url, { headers: on(bob), body: legacyCall('whoami') });
    expect(post.status).toBe(404);
    expect(post.json).toEqual(unknown.json);
    expect(
      (await ask(r.url, { method: 'GET', headers: { ...on(bob), accept: 'text/event-stream' } })).status,
    ).toBe(404);
    expect((await ask(r.url, { method: 'DELETE', headers: on(bob) })).status).toBe(404);
    // No token on the session: 401, which says nothing about whether the session exists.
    const anonymous = await ask(r.url, {
      headers: { ...LEGACY, 'mcp-session-id': sid },
      body: legacyCall('whoami'),
    });
    expect(anonymous.status).toBe(401);
    expect(calls).toEqual([]);
    // Alice, with a fresh token of the same client (a refresh), still owns the session.
    const again = bearer(await clientToken(as, CLIENTS.reader, r.resource));
    expect(again.authorization).not.toBe(alice.authorization);
    const mine = await ask(r.url, { headers: on(again), body: legacyCall('whoami') });
    expect(mine.status).toBe(200);
    expect(calls).toEqual(['whoami']);
  });

  it('300 refused initializes create no session: a cap of 2 still admits exactly two', async () => {
    const capped = await rig(defaults(), { sessions: true, maxSessions: 2 });
    const refused = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        ask(capped.url, { headers: { ...LEGACY, ...(i % 2 ? bearer('garbage') : {}) }, body: initialize() }),
      ),
    );
    expect(
      refused.every((answer) => answer.status === 401 && answer.headers['mcp-session-id'] === undefined),
    ).toBe(true);
    const token = bearer(await clientToken(as, CLIENTS.reader, capped.resource));
    const opened = [];
    for (let i = 0; i < 3; i++)
      opened.push((await ask(capped.url, { headers: { ...LEGACY, ...token }, body: initialize() })).status);
    expect(opened).toEqual([200, 200, 503]);
  });
});

describe('H. health routes stay open', () => {
  it('with no token and with a garbage Authorization header; readiness reflects the auth-keys check', async () => {
    // The check of an authPlugin for the same authorization server (startPier builds its own plugin).
    const { keysCheck } = authPlugin({
      resource: 'http://127.0.0.1:1/mcp',
      authorizationServers: [as.issuer],
    });
    const withHealth = await rig(defaults(), {}, [healthPlugin({ checks: [keysCheck] })]);
    for (const path of ['/health', '/health/live', '/health/ready']) {
      for (const headers of [{}, { authorization: 'Bearer %%%garbage' }, { authorization: 'Basic x' }]) {
        const answer = await ask(withHealth.url, { method: 'GET', path, headers });
        expect(answer.status, `${path} ${JSON.stringify(headers)}`).toBe(200);
      }
    }
    const ready = await ask(withHealth.url, { method: 'GET', path: '/health' });
    expect(ready.json).toMatchObject({ status: 'healthy', checks: { 'auth-keys': { status: 'healthy' } } });
    as.down = true;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const degraded = await ask(withHealth.url, { method: 'GET', path: '/health/ready' });
    expect(degraded.status).toBe(200);
    expect(degraded.json).toMatchObject({ status: 'degraded' });
  });
});

describe('I. hygiene', () => {
  it('a token never appears in logs, bodies or headers, refused or accepted', async () => {
    const r = await rig(defaults({ requiredScopes: ['notes:write'] }));
    const canary = `canary${'Z'.repeat(40)}`;
    const real = await clientToken(as, CLIENTS.reader, r.resource);
    const answers = [
      await whoami(r.url, bearer(canary)),
      await whoami(r.url, bearer(real)),
      await whoami(r.url, { authorization: [`Bearer ${canary}`, `Bearer ${real}`] }),
      await ask(`${r.url}?access_token=${canary}`, {
        headers: call('whoami').headers,
        body: call('whoami').body,
      }),
    ];
    const open = await rig(defaults());
    const accepted = await clientToken(as, CLIENTS.reader, open.resource);
    answers.push(await whoami(open.url, bearer(accepted)));
    expect(answers.map((a) => a.status)).toEqual([401, 403, 400, 400, 200]);
    const everything = [
      ...answers.map((a) => `${JSON.stringify(a.headers)}${a.text}`),
      ...r.logs,
      ...open.logs,
    ].join('\n');
    expect(everything).not.toContain(canary);
    expect(everything).not.toContain(real);
    expect(everything).not.toContain(real.split('.')[2]);
    expect(everything).not.toContain(accepted.split('.')[2]);
    expect(r.logs.join('')).toMatch(/request refused.*reason.*malformed/);
  });

  it("a verifier's message with CR/LF and quotes cannot break the challenge header", async () => {
    const r = await rig(() => ({
      authorizationServers: [as.issuer],
      verifier: custom(() => {
        throw new TokenRejectedError('unknown', 'bad\r\nX-Injected: 1 "quoted" \\ end');
      }),
    }));
    const answer = await whoami(r.url, bearer('anything-at-all'));
    expect(answer.status).toBe(401);
    expect(answer.headers['x-injected']).toBeUndefined();
    expect(answer.headers['www-authenticate']).toContain(
      'error_description="badX-Injected: 1 \\"quoted\\" \\\\ end"',
    );
  });
});
