// What the proxy publishes and how it refuses bad configuration and bad input, without a provider (the
// provider is never called here): discovery documents, the key set and its rotation, registration, client
// ID metadata documents, the consent page, the node adapter's limits, and options errors.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryKeyValueStore } from '@pier/core';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sealer } from './crypto.js';
import { github, google, OAuthProxyError, oauthProxy, oidc } from './index.js';
import { SigningKeys } from './keys.js';
import { ProxyStore } from './store.js';
import { Browser } from './test-browser.js';
import { freePort, type NotesRig, startNotes } from './test-rig.js';

const APP = { clientId: 'unit-app', clientSecret: 'unit-secret-0123456789abcdef0123456789' };
let rig: NotesRig;
let documents: Server;
const bodies = new Map<string, { status?: number; body: string; headers?: Record<string, string> }>();
/** Every document fetch that reached the document server. */
const hits: string[] = [];

beforeAll(async () => {
  documents = createServer((req, res) => {
    hits.push(req.url ?? '');
    const found = bodies.get(req.url ?? '');
    res.writeHead(found?.status ?? (found === undefined ? 404 : 200), {
      'content-type': 'application/json',
      ...found?.headers,
    });
    res.end(found?.body ?? '{}');
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  const local = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  rig = await startNotes(await freePort(), {
    upstream: github({
      ...APP,
      authorizationEndpoint: 'http://127.0.0.1:9/auth',
      tokenEndpoint: 'http://127.0.0.1:9/token',
    }),
    clientMetadataDocuments: {
      fetch: (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        return fetch(`${local}${url.pathname}`, init);
      },
    },
    auth: { resourceName: 'Pier notes' },
  });
});
afterAll(async () => {
  await rig?.close();
  documents?.closeAllConnections();
  await new Promise((resolve) => documents?.close(resolve));
});

const json = async (path: string, init?: RequestInit) => {
  const res = await fetch(`${rig.issuer}${path}`, init);
  return { res, body: (await res.json()) as Record<string, unknown> };
};

describe('discovery', () => {
  it('the protected resource metadata names the proxy as the authorization server', async () => {
    const { body } = await json('/.well-known/oauth-protected-resource/mcp');
    expect(body).toMatchObject({
      resource: rig.resource,
      authorization_servers: [rig.issuer],
      scopes_supported: ['notes:read', 'notes:write'],
      resource_name: 'Pier notes',
    });
  });

  it('RFC 8414 metadata: PKCE S256 only, DCR, CIMD, RFC 9207 iss, revocation, the key set', async () => {
    const { res, body } = await json('/.well-known/oauth-authorization-server');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(body).toEqual({
      issuer: rig.issuer,
      authorization_endpoint: `${rig.issuer}/oauth/authorize`,
      token_endpoint: `${rig.issuer}/oauth/token`,
      registration_endpoint: `${rig.issuer}/oauth/register`,
      revocation_endpoint: `${rig.issuer}/oauth/revoke`,
      jwks_uri: `${rig.issuer}/oauth/jwks`,
      scopes_supported: ['notes:read', 'notes:write'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    const openid = await json('/.well-known/openid-configuration');
    expect(openid.body).toMatchObject({ ...body, subject_types_supported: ['public'] });
    const preflight = await fetch(`${rig.issuer}/oauth/token`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
  });

  it('the key set publishes the signing key (ES256), and the next one ahead of its period', async () => {
    const { res, body } = await json('/oauth/jwks');
    expect(res.headers.get('content-type')).toBe('application/jwk-set+json');
    const keys = body.keys as { kid: string; alg: string; d?: string }[];
    expect(keys.length).toBeGreaterThanOrEqual(2);
    for (const key of keys) {
      expect(key.alg).toBe('ES256');
      expect(key.d).toBeUndefined();
    }
  });
});

describe('signing keys', () => {
  it('rotate by period: replicas sharing a store sign with one key; old tokens verify until their key retires', async () => {
    let now = 1_000_000;
    const store = new ProxyStore(
      new InMemoryKeyValueStore({ now: () => now }),
      new Sealer('k'.repeat(32)),
      'test:',
    );
    const replicaA = new SigningKeys(store, 10_000, 5_000, () => now);
    const replicaB = new SigningKeys(store, 10_000, 5_000, () => now);
    const [a, b] = await Promise.all([replicaA.sign({ n: 1 }), replicaB.sign({ n: 2 })]);
    expect(decodeProtectedHeader(a).kid).toBe(decodeProtectedHeader(b).kid);
    const verify = async (token: string, keys: SigningKeys) =>
      jwtVerify(token, (header) => keys.getKey(header), { currentDate: new Date(now) }).then(
        () => true,
        () => false,
      );
    expect(await verify(a, replicaB)).toBe(true);
    // Next period: a new key; the previous one still verifies (and is still published).
    now += 10_000;
    const c = await replicaA.sign({ n: 3 });
    expect(decodeProtectedHeader(c).kid).not.toBe(decodeProtectedHeader(a).kid);
    expect(await verify(a, replicaB)).toBe(true);
    const published = createLocalJWKSet(await replicaB.jwks());
    expect(await jwtVerify(a, published, { currentDate: new Date(now) }).then(() => true)).toBe(true);
    // Two periods on, the first key is gone.
    now += 20_000;
    expect(await verify(a, replicaB)).toBe(false);
    expect(await verify(c, replicaB)).toBe(false);
  });
});

describe('dynamic client registration', () => {
  it('registers a public client (no secret) and a confidential one (a secret, shown once)', async () => {
    const register = (body: unknown) =>
      json('/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const open = await register({
      redirect_uris: ['http://127.0.0.1:5000/cb'],
      token_endpoint_auth_method: 'none',
      client_name: 'Open',
    });
    expect(open.res.status).toBe(201);
    expect(open.body).toMatchObject({
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      client_name: 'Open',
    });
    expect(open.body.client_secret).toBeUndefined();
    const closed = await register({ redirect_uris: ['https://app.example.com/cb', 'cursor://anysphere/cb'] });
    expect(closed.body.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(typeof closed.body.client_secret).toBe('string');
    expect(closed.body.secretHash).toBeUndefined();
  });

  it.each([
    ['not JSON', 'application/json', '{oops', 'invalid_client_metadata'],
    ['not an object', 'application/json', '[]', 'invalid_client_metadata'],
    ['form-encoded', 'application/x-www-form-urlencoded', 'redirect_uris=x', 'invalid_client_metadata'],
    ['no redirect URI', 'application/json', '{"redirect_uris":[]}', 'invalid_redirect_uri'],
    [
      'an unknown auth method',
      'application/json',
      '{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}',
      'invalid_client_metadata',
    ],
    [
      'the implicit grant',
      'application/json',
      '{"redirect_uris":["https://a.example/cb"],"grant_types":["implicit"]}',
      'invalid_client_metadata',
    ],
    [
      'a token response type',
      'application/json',
      '{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}',
      'invalid_client_metadata',
    ],
  ])('refuses %s (400 %s)', async (_case, type, body, error) => {
    const res = await fetch(`${rig.issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe(error);
  });

  it('refuses a body past 64 KiB with 413, unread', async () => {
    const res = await fetch(`${rig.issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://a.example/cb'], client_name: 'x'.repeat(70_000) }),
    });
    expect(res.status).toBe(413);
  });

  it('a confidential client authenticates at the token endpoint with Basic or post, never without its secret', async () => {
    const { body } = await json('/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['https://app.example.com/cb'],
        token_endpoint_auth_method: 'client_secret_post',
      }),
    });
    const id = body.client_id as string;
    const secret = body.client_secret as string;
    const token = (params: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${rig.issuer}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: 'x',
          redirect_uri: 'https://app.example.com/cb',
          ...params,
        }),
      }).then(async (res) => [res.status, ((await res.json()) as { error: string }).error]);
    // Authenticated (the code is unknown, so the grant fails, after authentication).
    expect(await token({ client_id: id, client_secret: secret })).toEqual([400, 'invalid_grant']);
    expect(await token({}, { authorization: `Basic ${btoa(`${id}:${secret}`)}` })).toEqual([
      400,
      'invalid_grant',
    ]);
    expect(await token({ client_id: id })).toEqual([401, 'invalid_client']);
    expect(await token({ client_id: id, client_secret: `${secret}x` })).toEqual([401, 'invalid_client']);
    expect(
      await token({ client_secret: secret }, { authorization: `Basic ${btoa(`${id}:${secret}`)}` }),
    ).toEqual([400, 'invalid_request']);
  });
});

describe('client ID metadata documents', () => {
  const authorize = (clientId: string) => {
    const url = new URL(`${rig.issuer}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'https://app.example.com/cb',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    return fetch(url, { redirect: 'manual' }).then(async (res) => [
      res.status,
      ((await res.json().catch(() => ({}))) as { error?: string }).error,
    ]);
  };
  const document = (clientId: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      client_id: clientId,
      client_name: 'Doc client',
      redirect_uris: ['https://app.example.com/cb'],
      ...extra,
    });

  it.each([
    ['a loopback host', 'https://127.0.0.1/client.json'],
    ['a private address', 'https://10.0.0.8/client.json'],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest.json'],
    ['localhost', 'https://localhost/client.json'],
    ['plain http', 'http://client.test/client.json'],
    ['no path', 'https://client.test/'],
    ['dot segments', 'https://client.test/a/../client.json'],
  ])('never fetches %s: invalid_client', async (_case, url) => {
    const before = hits.length;
    expect(await authorize(url)).toEqual([400, 'invalid_client']);
    expect(hits.length).toBe(before);
  });

  it.each([
    ['another client_id', '/other.json', (url: string) => document(`${url}-not`)],
    ['a client secret inside', '/secret.json', (url: string) => document(url, { client_secret: 'x' })],
    [
      'no client_name',
      '/noname.json',
      (url: string) => JSON.stringify({ client_id: url, redirect_uris: ['https://app.example.com/cb'] }),
    ],
    [
      'a javascript: redirect URI',
      '/js.json',
      (url: string) => document(url, { redirect_uris: ['javascript:alert(1)'] }),
    ],
    [
      'a confidential auth method',
      '/basic.json',
      (url: string) => document(url, { token_endpoint_auth_method: 'client_secret_basic' }),
    ],
    ['not JSON', '/broken.json', () => '<html>'],
    [
      'too large',
      '/huge.json',
      (url: string) => document(url, { client_uri: `https://a.example/${'x'.repeat(6_000)}` }),
    ],
  ])('refuses a document with %s: invalid_client, before any consent', async (_case, path, body) => {
    const url = `https://client.test${path}`;
    bodies.set(path, { body: body(url) });
    expect(await authorize(url)).toEqual([400, 'invalid_client']);
    expect(hits).toContain(path);
  });

  it('refuses a document that answers 404 or redirects', async () => {
    bodies.set('/moved.json', {
      status: 302,
      body: '',
      headers: { location: 'https://evil.example/x.json' },
    });
    expect(await authorize('https://client.test/missing.json')).toEqual([400, 'invalid_client']);
    expect(await authorize('https://client.test/moved.json')).toEqual([400, 'invalid_client']);
  });
});

describe('the consent page', () => {
  it('escapes what clients say about themselves, states where codes go, and cannot be framed', async () => {
    const res = await fetch(`${rig.issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: '<script>alert("pwned")</script> Totally Legit\u202E',
        redirect_uris: ['http://127.0.0.1:7777/cb?x="><img src=x>'],
        token_endpoint_auth_method: 'none',
      }),
    });
    const { client_id } = (await res.json()) as { client_id: string };
    const url = new URL(`${rig.issuer}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id,
      redirect_uri: 'http://127.0.0.1:7777/cb?x="><img src=x>',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    const page = await new Browser().open(url.href);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('<script>');
    expect(page.html).not.toContain('<img');
    expect(page.html).not.toContain('\u202E');
    expect(page.html).toContain('&#60;script&#62;');
    expect(page.html).toContain('on your own computer');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.headers.get('set-cookie')).toMatch(
      /^pier-oauth=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax/,
    );
    expect(page.forms[0]?.buttons).toEqual([
      ['decision', 'approve'],
      ['decision', 'deny'],
    ]);
    expect(page.html).toContain('read your notes');
  });
});

describe('options', () => {
  const failure = (make: () => unknown): OAuthProxyError => {
    try {
      make();
    } catch (error) {
      return error as OAuthProxyError;
    }
    throw new Error('expected a throw');
  };

  it('names every problem at once, never quoting a secret', () => {
    const error = failure(() =>
      oauthProxy({
        resource: 'http://notes.example.com/mcp/',
        upstream: {} as never,
        scopes: ['notes read', 'offline_access'] as never,
        secret: 'short-but-secret',
        accessTokenTtlSeconds: 0,
        clientMetadataDocuments: 'yes' as never,
        auth: { resource: 'x' } as never,
      }),
    );
    expect(error).toBeInstanceOf(OAuthProxyError);
    expect(error.code).toBe('OAUTH_PROXY_OPTIONS_INVALID');
    expect(error.issues.join('\n')).toMatch(/resource must use https/);
    expect(error.issues.join('\n')).toMatch(/must not end with a slash/);
    expect(error.issues.join('\n')).toMatch(/upstream must be made by github\(\), google\(\) or oidc\(\)/);
    expect(error.issues.join('\n')).toMatch(/scopes must be an array of scope names/);
    expect(error.issues.join('\n')).toMatch(/secret must be a string of at least 32 characters/);
    expect(error.issues.join('\n')).toMatch(/accessTokenTtlSeconds must be an integer from 1 to 86400/);
    expect(error.issues.join('\n')).toMatch(/clientMetadataDocuments must be a boolean/);
    expect(error.issues.join('\n')).toMatch(/auth.resource is set by the proxy itself/);
    expect(error.message).not.toContain('short-but-secret');
  });

  it('checks the providers too', () => {
    const gh = failure(() =>
      github({ clientId: '', clientSecret: undefined as never, tokenEndpoint: 'http://evil.example/token' }),
    );
    expect(gh.issues).toEqual([
      'clientId must be a non-empty string (got "")',
      'clientSecret must be a non-empty string (got nothing)',
      'tokenEndpoint must be an https URL (http for 127.0.0.1, localhost or [::1] only) (got "http://evil.example/token")',
    ]);
    expect(
      failure(() => oidc({ issuer: 'https://idp.example.com', clientId: 'a', scopes: ['profile'] })).message,
    ).toMatch(/must include 'openid'/);
    const secret = 'google-secret-never-printed-0123456789';
    expect(failure(() => google({ clientId: 'a', clientSecret: 42 as never })).message).toMatch(
      /clientSecret must be a non-empty string \(got a number\)/,
    );
    const provider = google({ clientId: 'a', clientSecret: secret });
    expect(JSON.stringify(provider)).not.toContain(secret);
    expect(String(Object.values(provider))).not.toContain(secret);
  });

  it('a public provider client needs a secret of its own to seal the store', () => {
    const provider = oidc({ issuer: 'https://idp.example.com', clientId: 'public-client' });
    expect(
      failure(() => oauthProxy({ resource: 'https://notes.example.com/mcp', upstream: provider })).message,
    ).toMatch(/secret is required/);
    expect(
      oauthProxy({ resource: 'https://notes.example.com/mcp', upstream: provider, secret: 's'.repeat(32) })
        .callbackUrl,
    ).toBe('https://notes.example.com/oauth/callback');
  });
});
