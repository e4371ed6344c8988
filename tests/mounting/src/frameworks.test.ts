// Pier mounted in real Express 5, Fastify 5 and Hono 4 applications, in a Next.js App Router route handler
// (built by `next build`, served by `next start`), and the node and fetch handlers on their own, beside the application's own routes and middleware: the SDK clients of both eras call tools through
// it with an access token, health and /metrics answer under the mount, and what the user did not mount is
// the framework's own 404.
import { createServer as createNodeServer } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createNodeHandler } from '@pier/transport-http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from './http.js';
import { type Issuer, startIssuer } from './issuer.js';
import { FRAMEWORKS, MOUNTS, type Mounted, mount, type ServedBy } from './mounts.js';
import { buildNextApp, startNextApp } from './next-app.js';
import { appServer, RESOURCE } from './servers.js';

let issuer: Issuer;
let token: string;
const mounted = new Map<ServedBy, Mounted>();

beforeAll(async () => {
  // `next build` takes a while: it runs while the in-process mounts start.
  const built = buildNextApp();
  built.catch(() => {});
  issuer = await startIssuer();
  token = await issuer.token(RESOURCE);
  for (const name of MOUNTS) {
    if (name === 'listener') continue;
    // Node handlers live as long as the process: 2025 sessions work there.
    mounted.set(name, await mount(name, appServer(issuer.url), { sessions: true }));
  }
  await built;
  // The app's route makes the same `appServer` (with sessions) in the Next process, on the first request.
  mounted.set('next', await startNextApp({ PIER_TEST_ISSUER: issuer.url }));
}, 300_000);
afterAll(async () => {
  await Promise.all([...mounted.values()].map((each) => each.close()));
  await issuer.close();
});

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

const auth = () => ({ authorization: `Bearer ${token}` });

function textOf(result: unknown): string | undefined {
  return (result as { content?: { text?: string }[] }).content?.[0]?.text;
}

/** Where a path Pier does not serve goes on to the app (its 404); elsewhere Pier owns the tree below the mount. */
const PASSES_ON = new Set<ServedBy>(['express', 'hono']);

const adapters: ServedBy[] = [...MOUNTS.filter((name) => name !== 'listener'), 'next'];

describe.each(adapters)('Pier served by %s', (name) => {
  const at = () => mounted.get(name) as Mounted;

  it('serves the SDK v2 client in the 2026-07-28 revision, progress included', async () => {
    const client = new Client({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(at().mcp), { requestInit: { headers: auth() } }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'modern' } }))).toBe(
      'echo: modern',
    );
    const progress: number[] = [];
    const counted = await client.callTool(
      { name: 'count', arguments: {} },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(textOf(counted)).toBe('counted');
    expect(progress).toEqual([1, 2, 3]);
    await client.close();
  });

  it('serves the SDK v2 client in a 2025 session', async () => {
    const client = new Client({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    const transport = new StreamableHTTPClientTransport(new URL(at().mcp), {
      requestInit: { headers: auth() },
    });
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(transport.sessionId).toEqual(expect.any(String));
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'legacy' } }))).toBe(
      'echo: legacy',
    );
    await transport.terminateSession();
    await client.close();
  });

  it('serves the SDK v1 client', async () => {
    const client = new V1Client({ name: 'v1', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(at().mcp), { requestInit: { headers: auth() } }));
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'v1' } }))).toBe('echo: v1');
    await client.close();
  });

  it('challenges a request without a token (401, WWW-Authenticate), and serves none of it', async () => {
    const answer = await send(at().mcp, {
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toMatch(/^Bearer resource_metadata=/);
  });

  it("names protected resource metadata in the 401 that this mount serves, under the app's prefix", async () => {
    const challenge = await send(at().mcp, {
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    const named = /resource_metadata="([^"]+)"/.exec(String(challenge.headers['www-authenticate']))?.[1];
    // The resource's origin (tokens name it) with the path where this mount serves the document.
    expect(named).toBe(`http://127.0.0.1${at().prefix}/.well-known/oauth-protected-resource/api/mcp`);
    const metadata = await send(`${at().origin}${new URL(named as string).pathname}`, { method: 'GET' });
    expect(metadata.status).toBe(200);
    expect(metadata.json).toMatchObject({ resource: RESOURCE, authorization_servers: [issuer.url] });
  });

  it('answers a body that is not JSON, and a path under the mount it does not serve, as it should', async () => {
    const broken = await send(at().mcp, {
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...auth(),
      },
      body: '{"jsonrpc":',
    });
    expect(broken.status).toBe(400);
    expect(broken.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
    const unknown = await send(`${at().origin}${at().prefix}/nope`, { method: 'GET' });
    expect(unknown.status).toBe(404);
    if (PASSES_ON.has(name)) expect(unknown.text).not.toContain('jsonrpc');
    // Named as the client sent it: the mount's prefix included (Fastify and Next.js keep it on the request).
    else {
      expect(unknown.json).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32000, message: `Not Found: ${at().prefix}/nope` },
      });
    }
  });

  it('answers health and /metrics under the mount', async () => {
    const ready = await send(`${at().origin}${at().prefix}/health/ready`, { method: 'GET' });
    expect(ready.status).toBe(200);
    expect(ready.json).toMatchObject({ status: 'healthy' });
    const live = await send(`${at().origin}${at().prefix}/health/live`, { method: 'GET' });
    expect(live.status).toBe(200);
    const metrics = await send(`${at().origin}${at().prefix}/metrics`, { method: 'GET' });
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.text).toMatch(/^mcp_server_operation_duration_seconds_count\{.*\} [1-9]/m);
  });
});

describe.each<ServedBy>([...FRAMEWORKS, 'next'])('%s around Pier', (name) => {
  const at = () => mounted.get(name) as Mounted;

  it('keeps serving its own routes, and its middleware runs on Pier’s answers too', async () => {
    const hello = await send(`${at().origin}/hello`, { method: 'GET' });
    expect(hello.status).toBe(200);
    expect(hello.json).toEqual({ hello: `from ${name}` });
    const health = await send(`${at().origin}${at().prefix}/health/live`, { method: 'GET' });
    expect(health.headers['x-app']).toBe(name);
  });

  it('answers its own 404 where the user did not mount Pier (negative control)', async () => {
    // The same request that /api/mcp serves, at the root where nothing is mounted.
    const outside = await send(`${at().origin}/mcp`, {
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...auth(),
      },
      body: INITIALIZE,
    });
    expect(outside.status).toBe(404);
    expect(outside.text).not.toContain('jsonrpc');
    const inside = await send(at().mcp, {
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...auth(),
      },
      body: INITIALIZE,
    });
    expect(inside.status).toBe(200);
    expect(inside.headers['mcp-session-id']).toEqual(expect.any(String));
  });
});

describe('behind a body parser', () => {
  it('serves the JSON that express.json() parsed already (the stream is spent)', async () => {
    const handler = createNodeHandler(appServer(issuer.url));
    const app = express();
    app.use(express.json());
    app.use('/api', handler);
    const server = createNodeServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const client = new Client({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      const url = new URL(`http://127.0.0.1:${port}/api/mcp`);
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: auth() } }));
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'parsed' } }))).toBe(
        'echo: parsed',
      );
      await client.close();
    } finally {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
