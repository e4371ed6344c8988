// pier dev as an MCP client meets it: the SDK v2 client spawns `pier dev` over stdio and stays connected
// across edits — it is told tools/list_changed, calls the new tool, and a type error keeps the last
// good server. Over HTTP the port stays the same across a reload.
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expect, it } from 'vitest';
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
  if (era === '2026') await client.listen({ toolsListChanged: true });
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello']);
  // The first type check warms up in the background; wait for it so the reload below is not queued behind it.
  await until(() => said.includes('ready in'), 'the first start');

  writeFileSync(
    tools,
    original.replace('];', "  defineTool({ name: 'bye', handler: async () => 'Bye!' }),\n];"),
  );
  await until(() => seen.includes('notifications/tools/list_changed'), 'tools/list_changed');
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello', 'bye']);
  expect((await client.callTool({ name: 'bye', arguments: {} })).content).toEqual([
    { type: 'text', text: 'Bye!' },
  ]);
  expect(said).toMatch(/reloaded in \d+ ms \(tools added: bye; sent tools\/list_changed\)/);

  // A type error: reported, and the last good server keeps answering.
  writeFileSync(tools, `${original}\nexport const broken: number = 'text';\n`);
  await until(() => /1 type error; keeping the last good server/.test(said), 'the type error');
  expect(said).toMatch(/TS2322/);
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
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello']);
  writeFileSync(
    tools,
    readFileSync(tools, 'utf8').replace(
      '];',
      "  defineTool({ name: 'bye', handler: async () => 'Bye!' }),\n];",
    ),
  );
  await until(() => said.includes('reloaded'), 'the reload');
  // Same client, same URL: no reconnect.
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello', 'bye']);
  expect(
    said.match(/listening transport=streamable-http url=(\S+)/g)?.every((line) => line.endsWith(url)),
  ).toBe(true);
  await client.close();
  // Ctrl-C stops pier dev and its server; it exits 0.
  pier?.kill('SIGINT');
  expect((await run).code).toBe(0);
});
