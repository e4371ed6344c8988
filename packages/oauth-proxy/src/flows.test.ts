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
import { github } from './index.js';
import { Browser, type LoginChoices, logIn } from './test-browser.js';
import { callbackUrlOf, freePort, type NotesRig, startNotes } from './test-rig.js';
import { githubId, startUpstream, type Upstream } from './test-upstream.js';

const APP = { clientId: 'pier-notes-github-app', clientSecret: 'gh-app-secret-0123456789abcdef0123456789' };

let port: number;
let upstream: Upstream;
let rig: NotesRig;
let callback: Callback;
let documents: Server;
const documentBodies = new Map<string, string>();
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  port = await freePort();
  callback = await startCallback();
  upstream = await startUpstream({
    clients: [{ ...APP, redirectUri: callbackUrlOf(port) }],
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

function proxyOptions() {
  const local = () => `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  return {
    upstream: github({ ...APP, ...upstream.github }),
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
  url = rig.url,
  choices: LoginChoices = {},
): Promise<Client> {
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
  expect(params.get('iss')).toBe(rig.issuer);
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
