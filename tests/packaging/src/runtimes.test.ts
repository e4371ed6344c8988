// Scenario 6: the fetch handler on Bun, Deno and Cloudflare's workerd, each a real process serving Pier
// servers built from the packed tarballs (core, transport-http, plugin-health, plugin-auth with jwt()). The
// runtimes come from npm (`@oven/bun-linux-x64`, `@deno/linux-x64-glibc`, `@cloudflare/workerd-linux-64`),
// installed into the scratch project with the tarballs. Driven by the SDK v2 client in both eras and by the
// SDK v1 client, with access tokens from a small issuer in this process; the shared bad-input table of
// tests/mounting runs against each, compared with the node listener's answers.

import { writeFileSync } from 'node:fs';
import { createServer as createNodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createServer, defineServer, defineTool } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { httpTransport } from '@pier/transport-http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import {
  asSentUnder,
  BAD_INPUT_CASES,
  BAD_INPUT_LIMIT,
  type BadInputCase,
} from '../../mounting/src/bad-input-table.js';
import { send } from '../../mounting/src/http.js';
import { type Issuer, startIssuer } from '../../mounting/src/issuer.js';
import {
  killAll,
  npmProjectForSuite,
  RUNTIME_PACKAGES,
  runOk,
  type Started,
  startProcess,
  userEnv,
  WORKSPACE,
} from './scratch.js';

/** The resource the fixture's app server protects (fixtures/runtimes/pier.mjs). */
const RESOURCE = 'http://127.0.0.1/app/mcp';
/**
 * Workers: `nodejs_compat` (the date makes it the default; named anyway) with a date from which workerd
 * provides `node:fs`, which the MCP SDK's skills-from-disk module imports when a bundler inlines it.
 */
export const WORKERS_COMPATIBILITY = { date: '2025-09-15', flags: ['nodejs_compat'] } as const;

type Runtime = 'bun' | 'deno' | 'workerd';
const RUNTIMES: readonly Runtime[] = ['bun', 'deno', 'workerd'];

const project = npmProjectForSuite('runtimes', () => {
  const tarballs = inject('tarballs');
  return [
    tarballs.core,
    tarballs['transport-http'],
    tarballs['plugin-health'],
    tarballs['plugin-auth'],
    ...RUNTIME_PACKAGES,
  ];
});

let issuer: Issuer;
let token: string;
/** The node listener with the table server's settings, with and without sessions: the reference answers. */
const reference = new Map<boolean, { url: string; close(): Promise<void> }>();
const served = new Map<Runtime, { origin: string; process: Started }>();

beforeAll(async () => {
  issuer = await startIssuer();
  token = await issuer.token(RESOURCE);
  for (const sessions of [true, false]) reference.set(sessions, await startReference(sessions));
  for (const runtime of RUNTIMES) served.set(runtime, await start(runtime));
}, 120_000);
afterAll(async () => {
  killAll();
  await Promise.all([...reference.values()].map((each) => each.close()));
  await issuer?.close();
});

function binary(runtime: Runtime): string {
  const modules = join(project.dir, 'node_modules');
  if (runtime === 'bun') return join(modules, '@oven/bun-linux-x64/bin/bun');
  if (runtime === 'deno') return join(modules, '@deno/linux-x64-glibc/deno');
  return join(modules, '@cloudflare/workerd-linux-64/bin/workerd');
}

async function start(runtime: Runtime): Promise<{ origin: string; process: Started }> {
  const env = userEnv({ ISSUER: issuer.url, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' });
  if (runtime === 'bun') {
    const child = startProcess(binary('bun'), ['serve.mjs'], { cwd: project.dir, env });
    return { origin: await child.firstLine(30_000), process: child };
  }
  if (runtime === 'deno') {
    const child = startProcess(binary('deno'), ['run', '-A', '--quiet', 'serve.mjs'], {
      cwd: project.dir,
      env,
    });
    return { origin: await child.firstLine(30_000), process: child };
  }
  // Workers: bundled as wrangler would (esbuild, the workerd conditions), served by workerd itself.
  await runOk(
    join(WORKSPACE, 'node_modules', 'esbuild', 'bin', 'esbuild'),
    [
      'worker.mjs',
      '--bundle',
      '--format=esm',
      '--platform=neutral',
      '--main-fields=module,main',
      '--conditions=workerd,worker,browser',
      '--external:node:*',
      '--outfile=worker.bundle.mjs',
      '--log-level=error',
    ],
    { cwd: project.dir, env: userEnv() },
  );
  const port = await freePort();
  writeFileSync(join(project.dir, 'config.capnp'), workerdConfig(port, issuer.url));
  const child = startProcess(binary('workerd'), ['serve', 'config.capnp'], { cwd: project.dir, env });
  const origin = `http://127.0.0.1:${port}`;
  await waitFor(origin, child);
  return { origin, process: child };
}

function workerdConfig(port: number, issuerUrl: string): string {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["local", "private", "public"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.bundle.mjs", esModule = embed "worker.bundle.mjs") ],
  compatibilityDate = "${WORKERS_COMPATIBILITY.date}",
  compatibilityFlags = [${WORKERS_COMPATIBILITY.flags.map((flag) => `"${flag}"`).join(', ')}],
  bindings = [ (name = "ISSUER", text = "${issuerUrl}") ],
  globalOutbound = "loopback",
);
`;
}

/** A port nothing listens on now (workerd is given a fixed address). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createNodeServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function waitFor(origin: string, child: Started): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await fetch(`${origin}/table/health/live`);
      return;
    } catch (error) {
      if (Date.now() > deadline || child.process.exitCode !== null) {
        throw new Error(`workerd did not serve ${origin}: ${String(error)}\nstderr:\n${child.stderr()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function startReference(sessions: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const echo = defineTool({
    name: 'echo',
    description: 'Says it back',
    input: { text: z.string() },
    handler: async ({ text }) => `echo: ${text}`,
  });
  const server = createServer(
    defineServer({ name: 'table', version: '1.0.0', plugins: [healthPlugin({ checks: [] })], tools: [echo] }),
    { handleSignals: false, logLevel: 'error' },
  );
  const { url } = await server.listen(httpTransport({ port: 0, maxBodyBytes: BAD_INPUT_LIMIT, sessions }));
  return { url: new URL(url).origin, close: () => server.close() };
}

const auth = () => ({ authorization: `Bearer ${token}` });

function textOf(result: unknown): string | undefined {
  return (result as { content?: { text?: string }[] }).content?.[0]?.text;
}

describe.each(RUNTIMES)('Pier on %s (packed tarballs)', (runtime) => {
  const origin = () => (served.get(runtime) as { origin: string }).origin;
  const mcp = () => new URL(`${origin()}/app/mcp`);

  it('serves the SDK v2 client in the 2026-07-28 revision, progress included, behind jwt()', async () => {
    const client = new Client({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(mcp(), { requestInit: { headers: auth() } }));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: runtime } }))).toBe(
      `echo: ${runtime}`,
    );
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'count', arguments: {} },
      { onprogress: (update) => progress.push(update.progress) },
    );
    expect(textOf(result)).toBe(`counted on ${runtime}`);
    expect(progress).toEqual([1, 2, 3]);
    await client.close();
  });

  it('serves the SDK v2 client in the 2025 handshake (a session where the process lives on)', async () => {
    const client = new Client({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    const transport = new StreamableHTTPClientTransport(mcp(), { requestInit: { headers: auth() } });
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(transport.sessionId !== undefined).toBe(runtime !== 'workerd');
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'legacy' } }))).toBe(
      'echo: legacy',
    );
    await client.close();
  });

  it('serves the SDK v1 client', async () => {
    const client = new V1Client({ name: 'v1', version: '1.0.0' });
    await client.connect(new V1Transport(mcp(), { requestInit: { headers: auth() } }));
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'v1' } }))).toBe('echo: v1');
    await client.close();
  });

  it('refuses a request without a token, and one with a forged token (negative controls)', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await send(mcp().href, { headers, body });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer resource_metadata=/);
    const forged = await send(mcp().href, {
      headers: { ...headers, authorization: `Bearer ${token.slice(0, -4)}AAAA` },
      body,
    });
    expect(forged.status).toBe(401);
    expect((await send(mcp().href, { headers: { ...headers, ...auth() }, body })).status).toBe(200);
  });

  it('answers health, and its own 404 outside the mounted paths', async () => {
    const ready = await send(`${origin()}/app/health/ready`, { method: 'GET' });
    expect(ready.status).toBe(200);
    expect(ready.json).toMatchObject({ status: 'healthy' });
    const outside = await send(`${origin()}/mcp`, { method: 'GET' });
    expect(outside.status).toBe(404);
    expect(outside.text).toBe('not mounted here');
  });

  it.each(BAD_INPUT_CASES.filter((test) => runtime !== 'workerd' || test.sessions !== true))(
    'bad input: $name → the listener’s status and JSON body',
    async (test: BadInputCase) => {
      const request = {
        method: test.method,
        headers: test.headers,
        ...(test.body !== undefined && { body: test.body }),
        ...(test.chunked === true && { chunked: true }),
      };
      // Workers serve without sessions: their reference is the stateless listener.
      const listener = reference.get(runtime !== 'workerd') as { url: string };
      const expected = await send(`${listener.url}${test.path}`, request);
      const answer = await send(`${origin()}/table${test.path}`, request);
      // A 404 or 405 names the path as the client sent it, with the mount's base path.
      expect({ status: answer.status, body: answer.json }).toEqual({
        status: expected.status,
        body: asSentUnder(expected.json, '/table'),
      });
      expect(answer.headers.allow).toBe(expected.headers.allow);
    },
  );
});

describe('Workers: what cannot run there is refused clearly', () => {
  const origin = () => (served.get('workerd') as { origin: string }).origin;

  it('refuses 2025 sessions when the handler is made', async () => {
    const answer = await send(`${origin()}/probe/sessions`, { method: 'GET' });
    expect(answer.json).toMatchObject({
      code: 'HTTP_OPTIONS_INVALID',
      message: expect.stringMatching(/sessions: Cloudflare Workers cannot hold 2025 sessions/),
    });
  });

  it('refuses stdio with TRANSPORT_UNAVAILABLE', async () => {
    const answer = await send(`${origin()}/probe/stdio`, { method: 'GET' });
    expect(answer.json).toMatchObject({
      code: 'TRANSPORT_UNAVAILABLE',
      message: expect.stringMatching(/^listen: stdio needs a process with stdin and stdout/),
    });
  });
});

describe('Bun and Deno: signals', () => {
  it.each(['bun', 'deno'] as const)('%s: SIGTERM drains the started servers and exits 0', async (runtime) => {
    const { process: child } = served.get(runtime) as { process: Started };
    child.process.kill('SIGTERM');
    const exit = await child.exited;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toContain('[app] closed');
  });
});
