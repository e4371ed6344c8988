// The server as MCP clients see it: @pier/testing connects the official SDK client, for the
// 2026-07-28 protocol revision and for 2025 clients.
import { createServer } from '@pier/core';
import { closeAll, connect, type Era } from '@pier/testing';
// #if app
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// #else
import { afterEach, describe, expect, it } from 'vitest';
// #endif
// #if workers
import { unstable_startWorker } from 'wrangler';
// #else
// #if app
import { start } from './app.js';
// #endif
// #endif
// #if decorators
import { AppServer } from './server.js';

const newServer = () => createServer(AppServer, { apiKey: 'test-key' }, { logLevel: 'warn', handleSignals: false });
// #else
import { appServer } from './server.js';

const newServer = () => createServer(appServer({ apiKey: 'test-key' }), { logLevel: 'warn', handleSignals: false });
// #endif

afterEach(closeAll);

describe.each<Era>(['2026-07-28', '2025-11-25'])('a %s client', (era) => {
  it('greets by name', async () => {
    const { client } = await connect(newServer(), { era });
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
  });

  it('refuses a greeting without a name', async () => {
    const { client } = await connect(newServer(), { era });
    const result = await client.callTool({ name: 'greet', arguments: { name: '' } });
    expect(result.isError).toBe(true);
  });

  it('reads the about resource without revealing the key', async () => {
    const { client } = await connect(newServer(), { era });
    const { contents } = await client.readResource({ uri: 'about://server' });
    expect(contents[0]).toMatchObject({ uri: 'about://server', text: '__NAME__ 0.1.0; API key configured' });
    expect(JSON.stringify(contents)).not.toContain('test-key');
  });

  it('fills the explain prompt', async () => {
    const { client } = await connect(newServer(), { era });
    const { messages } = await client.getPrompt({ name: 'explain', arguments: { topic: 'MCP' } });
    expect(messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Explain MCP in one short paragraph.' } },
    ]);
  });
// #if http
// #if !app

  it('answers over streamable HTTP too', async () => {
    const { client } = await connect(newServer(), { era, transport: 'http' });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['greet']);
  });
// #endif
// #endif
});
// #if app

// #if workers
describe('the Worker, on workerd (wrangler)', () => {
// #else
// #if framework
describe('the app, served over HTTP', () => {
// #else
describe('the fetch handler, served by __RUNTIME__', () => {
// #endif
// #endif
  let served: { url: string; close(): Promise<void> };
  beforeAll(async () => {
// #if workers
    served = await startWorker();
// #else
    served = await start({ apiKey: 'test-key' }, { port: 0, server: { logLevel: 'warn', handleSignals: false } });
// #endif
  }, 60_000);
  afterAll(() => served.close());

  // The first request starts the server (and, on workerd, the isolate): give it time on a busy machine.
  it.each<Era>(['2026-07-28', '2025-11-25'])(
    'serves a %s client at /mcp',
    async (era) => {
      const { client } = await connect(`${served.url}/mcp`, { era });
      const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
      expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    },
    30_000,
  );
// #if health

  it('answers /health/ready', async () => {
    const response = await fetch(`${served.url}/health/ready`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'healthy' });
  });
// #endif
// #if framework

  it('keeps the app’s own routes and middleware beside MCP', async () => {
    const response = await fetch(`${served.url}/`);
    expect(await response.json()).toEqual({ name: '__NAME__', mcp: '/mcp' });
    expect(response.headers.get('x-app')).toBe('__NAME__');
    // A path neither the app nor Pier serves: the framework's own 404.
    expect((await fetch(`${served.url}/nowhere`)).status).toBe(404);
  });
// #endif
// #if bun

  it('runs on Bun', () => {
    expect('Bun' in globalThis).toBe(true);
  });
// #endif
// #if deno

  it('runs on Deno', () => {
    expect('Deno' in globalThis).toBe(true);
  });
// #endif
});
// #endif
// #if workers

/** The Worker as `wrangler dev` runs it (workerd, wrangler.toml), on a free port, with a test API key. */
async function startWorker(): Promise<{ url: string; close(): Promise<void> }> {
  const worker = await unstable_startWorker({
    config: 'wrangler.toml',
    bindings: { API_KEY: { type: 'secret_text', value: 'test-key' } },
    dev: { server: { hostname: '127.0.0.1', port: 0 }, inspector: false },
  });
  await worker.ready;
  return { url: (await worker.url).origin, close: () => worker.dispose() };
}
// #endif
