// What a server's start costs, as a property of the modules it loads (timing is bench/'s): a Pier server
// on node answers MCP and a plain plugin route without loading Node's fetch implementation (undici, with
// `tls`, `http2` and `zlib`), the largest single cost of an HTTP server's start (≈ 300 M instructions on
// Node 20, 450 M on Node 24). Run on each Node the check runs (20, and 24 in its Node 24 pass).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PROGRAM = `
// What is loaded from here on counts: Pier's imports included (an ES import of node:http would count).
const before = new Set(process.moduleLoadList);
const { request } = process.getBuiltinModule('node:http');
const { createServer, defineServer, defineTool } = await import('@pier/core');
await import('@pier/transport-http');
const server = createServer(
  defineServer({
    name: 'start-cost',
    version: '1.0.0',
    tools: [defineTool({ name: 'ping', description: 'pong', handler: async () => 'pong' })],
    plugins: [{
      name: 'probe',
      setup: (ctx) => ctx.addRoute({
        method: 'GET',
        path: '/ready',
        handler: () => new Response('web'),
        plain: () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'plain' }),
      }),
    }],
  }),
  { handleSignals: false, logLevel: 'error' },
);
const running = await server.listen({ transport: 'streamable-http', port: 0, host: '127.0.0.1' });
const port = new URL(running.url).port;
const ask = (method, path, body, headers = {}) => new Promise((resolve, reject) => {
  const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => { text += chunk; });
    res.on('end', () => resolve(res.statusCode + ' ' + text));
  });
  req.on('error', reject);
  req.end(body);
});
const ready = await ask('GET', '/ready');
const call = await ask('POST', '/mcp', JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'tools/call',
  params: { name: 'ping', arguments: {}, _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'start-cost', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  } },
}), {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'ping',
});
const loaded = process.moduleLoadList.filter((m) => !before.has(m) && /\\b(undici|http2|tls|zlib)$/.test(m));
await server.close();
process.stdout.write(JSON.stringify({ ready, call, loaded }));
`;

function run(): Promise<{ ready: string; call: string; loaded: string[] }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', PROGRAM],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), timeout: 20_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout));
      },
    );
  });
}

describe(`a server's start on Node ${process.versions.node}`, () => {
  it('answers a plain route and a tool call without loading undici, tls, http2 or zlib', async () => {
    const outcome = await run();
    expect(outcome.ready).toBe('200 plain');
    expect(outcome.call).toMatch(/^200 .*pong/);
    expect(outcome.loaded).toEqual([]);
  });
});
