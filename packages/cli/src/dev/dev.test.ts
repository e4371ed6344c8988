// pier dev as an MCP client meets it: the SDK v2 client spawns `pier dev` over stdio and stays connected
// across edits — it is told tools/list_changed and prompts/list_changed, calls the new tool, and a syntax
// or type error keeps the last good server. Over HTTP the port stays the same across a reload and a call
// in flight finishes on the old code.
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expect, it } from 'vitest';
import { freePort } from '../../../plugin-auth/src/test-as.js';
import { BIN, runPier } from '../test-helpers.js';

// Inside the package, so that the project resolves @pier/core, zod and typescript from its node_modules.
const ROOT = fileURLToPath(new URL('../../.test-projects/', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/dev-project/', import.meta.url));

function project(name: string): string {
  const dir = join(ROOT, `${name}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

const stderrOf: string[] = [];

async function until(check: () => boolean, what: string, ms = 45_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}; pier dev said:\n${stderrOf.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it.each(['2025', '2026'] as const)('over stdio a %s client stays connected across edits', async (era) => {
  const dir = project(`stdio-${era}`);
  const tools = join(dir, 'src', 'tools.ts');
  const original = readFileSync(tools, 'utf8');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'dev'],
    cwd: dir,
    stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
  });
  let said = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    said += chunk.toString();
    stderrOf.push(chunk.toString());
  });
  const client = new Client(
    { name: 'dev-test', version: '1.0.0' },
    era === '2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const seen: string[] = [];
  client.fallbackNotificationHandler = async (n) => {
    seen.push(n.method);
  };
  await client.connect(transport);
  // pier dev announces list changes itself, so the handshake says so, whatever the server's lists are.
  expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
  if (era === '2026') await client.listen({ toolsListChanged: true, promptsListChanged: true });
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello', 'slow']);
  // The first type check warms up in the background; wait for it so the reload below is not queued behind it.
  await until(() => said.includes('ready in'), 'the first start');

  // A tool and a prompt added: the client hears both lists changed, and the new tool answers.
  writeFileSync(
    tools,
    original
      .replace('];', "  defineTool({ name: 'bye', handler: async () => 'Bye!' }),\n];")
      .replace(
        "'Say hello.' })]",
        "'Say hello.' }), definePrompt({ name: 'farewell', handler: () => 'Bye.' })]",
      ),
  );
  await until(() => seen.includes('notifications/prompts/list_changed'), 'prompts/list_changed');
  await until(() => seen.includes('notifications/tools/list_changed'), 'tools/list_changed');
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello', 'slow', 'bye']);
  expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet', 'farewell']);
  expect((await client.callTool({ name: 'bye', arguments: {} })).content).toEqual([
    { type: 'text', text: 'Bye!' },
  ]);
  expect(said).toMatch(
    /reloaded in \d+ ms \(tools added: bye; sent tools\/list_changed, prompts\/list_changed\)/,
  );

  // A broken edit — a syntax error for one era, a type error for the other — is reported, and the last
  // good server keeps answering.
  if (era === '2025') {
    writeFileSync(tools, `${original}\nexport const broken = ;\n`);
    await until(() => /build failed; keeping the last good server/.test(said), 'the syntax error');
    // esbuild's message: what, then where (file, line, column).
    expect(said).toMatch(/\[ERROR\] Unexpected ";"\s+src\/tools\.ts:\d+:\d+:/);
  } else {
    writeFileSync(tools, `${original}\nexport const broken: number = 'text';\n`);
    await until(() => /1 type error; keeping the last good server/.test(said), 'the type error');
    expect(said).toMatch(/TS2322/);
  }
  expect((await client.callTool({ name: 'bye', arguments: {} })).content).toEqual([
    { type: 'text', text: 'Bye!' },
  ]);

  await client.close();
});

it('over HTTP the port stays the same and the new code answers', async () => {
  const dir = project('http');
  const tools = join(dir, 'src', 'tools.ts');
  let said = '';
  let pier: ChildProcess | undefined;
  const run = runPier(['dev', '--no-typecheck', '--', '--http'], {
    cwd: dir,
    onStderr: (text) => {
      said = text;
    },
    onSpawn: (child) => {
      pier = child;
    },
    timeoutMs: 60_000,
  });
  await until(() => /serving (http:\/\/[^\s;]+)/.test(said), 'the URL');
  const url = /serving (http:\/\/[^\s;]+)/.exec(said)?.[1] ?? '';
  const client = new Client(
    { name: 'dev-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello', 'slow']);
  // A call in flight (the server said it started it) when the code changes...
  let settled = false;
  const inFlight = client.callTool({ name: 'slow', arguments: {} }).finally(() => {
    settled = true;
  });
  await until(() => existsSync(join(dir, 'started')), 'the slow call to start');
  writeFileSync(
    tools,
    readFileSync(tools, 'utf8')
      .replace("return 'v1'", "return 'v2'")
      .replace('];', "  defineTool({ name: 'bye', handler: async () => 'Bye!' }),\n];"),
  );
  await until(() => said.includes('reloaded'), 'the reload');
  expect(settled).toBe(false);
  // Same client, same URL: no reconnect; the new code answers.
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello', 'slow', 'bye']);
  expect(
    said.match(/listening transport=streamable-http url=(\S+)/g)?.every((line) => line.endsWith(url)),
  ).toBe(true);
  // ...finishes on the old code, while a new call runs the new.
  writeFileSync(join(dir, 'release'), '');
  expect((await inFlight).content).toEqual([{ type: 'text', text: 'v1' }]);
  expect((await client.callTool({ name: 'slow', arguments: {} })).content).toEqual([
    { type: 'text', text: 'v2' },
  ]);
  await client.close();
  // Ctrl-C stops pier dev and its server; it exits 0.
  pier?.kill('SIGINT');
  expect((await run).code).toBe(0);
});

// The Inspector needs Node >= 22.19: pier dev runs it with npx under the registry's node@24 (downloaded on
// a fresh machine, hence the long bound). Its web port is the Inspector's CLIENT_PORT (default 6274): a
// free one here, so that parallel runs never meet; its other ports are left to the system.
it('--inspector starts the MCP Inspector, connected to the dev server, and stops it with pier dev', async () => {
  const dir = project('inspector');
  let said = '';
  let pier: ChildProcess | undefined;
  const port = await freePort();
  const run = runPier(['dev', '--inspector', '--no-typecheck', '--', '--http'], {
    cwd: dir,
    env: { CLIENT_PORT: String(port), MCP_SANDBOX_PORT: '0', MCP_APP_ORIGIN_PORT: '0' },
    onStderr: (text) => {
      said = text;
    },
    onSpawn: (child) => {
      pier = child;
    },
    timeoutMs: 200_000,
  });
  try {
    await until(() => /MCP Inspector: http/.test(said), 'the Inspector URL', 180_000);
    const server = /serving (http:\/\/[^\s;]+)/.exec(said)?.[1] ?? '';
    const page = new URL(/MCP Inspector: (http\S+)/.exec(said)?.[1] ?? '');
    expect(page.port).toBe(String(port));
    // The URL answers: the Inspector's web UI.
    const html = await fetch(page);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    // It is set up for the dev server, and reaches it: its backend connects and gets an answer to
    // initialize (the API the web UI itself calls, with the token from the URL).
    const token = page.searchParams.get('MCP_INSPECTOR_API_TOKEN') ?? '';
    const headers = {
      'x-mcp-remote-auth': `Bearer ${token}`,
      origin: page.origin,
      'content-type': 'application/json',
    };
    const config = (await (await fetch(new URL('/api/config', page), { headers })).json()) as Record<
      string,
      unknown
    >;
    expect(config).toMatchObject({
      defaultTransport: 'streamable-http',
      defaultServerUrl: server,
      version: '2.12.0',
    });
    const connected = (await (
      await fetch(new URL('/api/mcp/connect', page), {
        method: 'POST',
        headers,
        body: JSON.stringify({ config: { type: 'streamable-http', url: server } }),
      })
    ).json()) as { sessionId?: string };
    expect(connected.sessionId).toEqual(expect.any(String));
    const sent = await fetch(new URL('/api/mcp/send', page), {
      method: 'POST',
      headers,
      body: JSON.stringify({
        sessionId: connected.sessionId,
        message: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'test', version: '1' },
          },
        },
      }),
    });
    expect(await sent.json()).toEqual({ ok: true });
  } finally {
    // Ctrl-C to pier dev (its PID) stops the server and the Inspector with it.
    if (pier?.pid !== undefined) process.kill(pier.pid, 'SIGINT');
  }
  expect((await run).code).toBe(0);
  const page = /MCP Inspector: (http\S+)/.exec(said)?.[1] ?? '';
  await expect(fetch(page)).rejects.toThrow();
}, 220_000);
