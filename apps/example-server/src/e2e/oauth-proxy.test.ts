// Proxy mode: AUTH_UPSTREAM_ISSUER, AUTH_UPSTREAM_CLIENT_ID and AUTH_UPSTREAM_CLIENT_SECRET make the app its
// own OAuth authorization server (@pier/oauth-proxy) in front of an identity provider — here a real
// oidc-provider on 127.0.0.1 with one pre-registered client and one redirect URI, found by its issuer URL. A
// client registers, the person (played by this test over HTTP) approves it on the app's consent page and
// signs in at the provider, and the client's token opens the notes. Bad settings stop the app with exit 1.
import { createHash, randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, cleanUp, spawnApp, startHttpApp, TEST_API_KEY } from './test-app.js';

const TEST_TIMEOUT_MS = 30_000;
const APP = { clientId: 'pier-notes-app', clientSecret: 'proxy-mode-client-secret-0123456789abcdef' };
const REDIRECT = 'http://127.0.0.1:9/callback';

let port: number;
let issuer: string;
let idp: Server;

beforeAll(async () => {
  port = await freePort();
  idp = createHttpServer();
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: APP.clientId,
        client_secret: APP.clientSecret,
        redirect_uris: [`http://127.0.0.1:${port}/oauth/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' }] },
    features: { devInteractions: { enabled: true }, registration: { enabled: false } },
    cookies: { keys: ['example-proxy-cookie-key'] },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  });
  idp.on('request', provider.callback());
}, 20_000);
afterAll(async () => {
  idp.closeAllConnections();
  await new Promise((resolve) => idp.close(resolve));
});
afterEach(cleanUp);

async function freePort(): Promise<number> {
  const probe = createHttpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port: free } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return free;
}

const proxyEnv = () => ({
  AUTH_UPSTREAM_ISSUER: issuer,
  AUTH_UPSTREAM_CLIENT_ID: APP.clientId,
  AUTH_UPSTREAM_CLIENT_SECRET: APP.clientSecret,
});

/** A person at a browser: cookies by host, redirects followed, forms submitted from the page's origin. */
async function browse(start: string, stopAt: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start;
  let post: { action: string; body: URLSearchParams; origin: string } | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const target = post?.action ?? url;
    const res = await fetch(target, {
      method: post === undefined ? 'GET' : 'POST',
      redirect: 'manual',
      headers: {
        accept: 'text/html',
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(post !== undefined && {
          'content-type': 'application/x-www-form-urlencoded',
          origin: post.origin,
          'sec-fetch-site': 'same-origin',
        }),
      },
      ...(post !== undefined && { body: post.body }),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    const html = await res.text();
    post = undefined;
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location') as string, target).href;
      if (url.startsWith(stopAt)) return new URL(url);
      continue;
    }
    url = target;
    const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/.exec(html);
    if (res.status !== 200 || form === null)
      throw new Error(`the browser got ${res.status} at ${target}: ${html.slice(0, 200)}`);
    const body = new URLSearchParams();
    for (const [tag] of (form[2] as string).matchAll(/<input[^>]*>/g)) {
      const name = /name="([^"]+)"/.exec(tag)?.[1];
      if (name === undefined || (/type="checkbox"/.test(tag) && !/checked/.test(tag))) continue;
      const value = /value="([^"]*)"/.exec(tag)?.[1] ?? '';
      body.append(
        name,
        value.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))),
      );
    }
    if (body.has('csrf')) body.set('decision', 'approve'); // the app's consent page
    if (body.has('login')) body.set('login', 'alice'); // the provider's login page
    if (body.has('password')) body.set('password', 'any');
    post = { action: new URL(form[1] as string, target).href, body, origin: new URL(target).origin };
  }
  throw new Error('the login did not finish');
}

function callTool(url: string, name: string, args: Record<string, unknown>, token?: string) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

describe('proxy mode (AUTH_UPSTREAM_*)', () => {
  it(
    'a client registers, alice approves it and signs in at the provider, and its token opens the notes',
    async () => {
      const app = await startHttpApp({ args: ['--port', String(port)], env: proxyEnv() });
      // Where clients find the authorization server: the app itself.
      const metadata = (await (
        await fetch(`${app.origin}/.well-known/oauth-protected-resource/mcp`)
      ).json()) as {
        authorization_servers: string[];
      };
      expect(metadata.authorization_servers).toEqual([app.origin]);
      const bare = await callTool(app.url, 'list_notes', {});
      expect(bare.status).toBe(401);
      expect(bare.headers.get('www-authenticate')).toContain('resource_metadata=');

      const registered = (await (
        await fetch(`${app.origin}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: 'e2e client',
            redirect_uris: [REDIRECT],
            token_endpoint_auth_method: 'none',
            grant_types: ['authorization_code', 'refresh_token'],
          }),
        })
      ).json()) as { client_id: string };
      const verifier = randomBytes(32).toString('base64url');
      const authorize = new URL(`${app.origin}/oauth/authorize`);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: registered.client_id,
        redirect_uri: REDIRECT,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        scope: 'notes:read notes:write',
        resource: app.url,
      }).toString();
      const back = await browse(authorize.href, REDIRECT);
      expect(back.searchParams.get('iss')).toBe(app.origin);
      const tokens = (await (
        await fetch(`${app.origin}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: back.searchParams.get('code') as string,
            redirect_uri: REDIRECT,
            code_verifier: verifier,
            client_id: registered.client_id,
          }),
        })
      ).json()) as { access_token: string; refresh_token: string; scope: string };
      expect(tokens.scope).toBe('notes:read notes:write');
      expect(tokens.refresh_token).toBeTruthy();
      expect(
        (await callTool(app.url, 'add_note', { title: 'proxy', body: 'mode' }, tokens.access_token)).status,
      ).toBe(200);
      const listed = await callTool(app.url, 'list_notes', {}, tokens.access_token);
      expect(await listed.text()).toContain('proxy');
      // The client secret is masked in the configuration report, and never printed.
      const config = await (await callTool(app.url, 'show_config', {}, tokens.access_token)).text();
      expect(config).toContain('authUpstreamClientSecret');
      expect(config).not.toContain(APP.clientSecret);
      expect(app.stderr()).toContain(`callbackUrl=http://127.0.0.1:${port}/oauth/callback`);
      expect(app.stderr()).not.toContain(APP.clientSecret);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'incomplete or conflicting settings stop the app with exit code 1, naming them, never the secret',
    async () => {
      const cases: [NodeJS.ProcessEnv, string[], RegExp][] = [
        [{ AUTH_UPSTREAM_ISSUER: issuer }, [], /AUTH_UPSTREAM_CLIENT_SECRET\) go together/],
        [
          { ...proxyEnv(), AUTH_ISSUER: issuer, AUTH_RESOURCE: 'http://127.0.0.1:1/mcp' },
          [],
          /exclude each other/,
        ],
        [proxyEnv(), ['--host', '0.0.0.0', '--port', '3000'], /AUTH_RESOURCE\) is required in proxy mode/],
        [
          { ...proxyEnv(), AUTH_UPSTREAM_ISSUER: 'http://idp.example.com' },
          [],
          /http is accepted for a loopback address only/,
        ],
      ];
      for (const [env, args, message] of cases) {
        const app = spawnApp(
          ['--transport', 'streamable-http', '--port', '0', ...args],
          baseEnv({ API_KEY: TEST_API_KEY, ...env }),
        );
        expect((await app.exited).code, JSON.stringify(env)).toBe(1);
        expect(app.stderr()).toMatch(message);
        expect(app.stderr()).not.toContain(APP.clientSecret);
      }
    },
    TEST_TIMEOUT_MS,
  );
});
