// Bad input over real HTTP: one sessionful server (in a child process that reports unhandled rejections
// and uncaught exceptions on stderr) answers a table of malformed, oversized, misdirected and hostile
// requests sent on raw sockets, each with the status of packages/transport-http/README.md's table and a
// JSON-RPC error body; afterwards the same server still serves a real SDK client and /health/live.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Child, cleanUp, type RawResponse, rawRequest, startFixture } from './child.js';
import { connectClient, initializeBody, LEGACY_VERSION, textOf } from './mcp.js';

const MAX_BODY = 64 * 1024;
let server: Child & { url: URL };
let port: number;
let session: string;

beforeAll(async () => {
  server = await startFixture({
    listen: { sessions: true, maxBodyBytes: MAX_BODY, headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 },
  });
  port = Number(server.url.port);
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: initializeBody(),
  });
  expect(res.status).toBe(200);
  session = res.headers.get('mcp-session-id') ?? '';
  expect(session).not.toBe('');
  await res.text();
  const ack = await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
    session: true,
  });
  expect(ack.status).toBe(202);
});

afterAll(cleanUp);

interface RequestParts {
  method?: string;
  path?: string;
  headers?: Record<string, string | undefined>;
  body?: string | Buffer;
  /** Keep the default session header (for 2025-era requests that need one). */
  session?: boolean;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function request({
  method = 'POST',
  path = '/mcp',
  headers = {},
  body,
  session: withSession,
}: RequestParts): string {
  const all: Record<string, string | undefined> = {
    host: `127.0.0.1:${port}`,
    connection: 'close',
    ...(method === 'POST' && JSON_HEADERS),
    ...(withSession && { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY_VERSION }),
    ...(body !== undefined && { 'content-length': String(Buffer.byteLength(body)) }),
    ...headers,
  };
  const lines = Object.entries(all)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}: ${value}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

function post(body: string | Buffer, parts: RequestParts = {}): Promise<RawResponse> {
  return send({ ...parts, body });
}

function send(parts: RequestParts): Promise<RawResponse> {
  const head = request(parts);
  return rawRequest(port, parts.body === undefined ? [head] : [head, parts.body]);
}

const ping = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

interface Case {
  readonly name: string;
  readonly send: () => Promise<RawResponse>;
  readonly status: number;
  /** The JSON-RPC error code of the body; `result` for a successful answer; `none` for a bodiless HEAD. */
  readonly code?: number | 'result' | 'none' | 'any-error';
  readonly header?: readonly [string, RegExp];
}

const big = Buffer.alloc(MAX_BODY + 1024, 'a');
const cases: Case[] = [
  // Malformed, truncated and empty bodies.
  { name: 'malformed JSON', send: () => post('{"jsonrpc":', { session: true }), status: 400, code: -32700 },
  {
    name: 'truncated JSON-RPC message',
    send: () => post(ping(1).slice(0, -5), { session: true }),
    status: 400,
    code: -32700,
  },
  { name: 'empty body', send: () => post('', { session: true }), status: 400, code: -32700 },
  { name: 'whitespace body', send: () => post('  \n\t ', { session: true }), status: 400, code: -32700 },
  {
    name: 'invalid UTF-8 body',
    send: () => post(Buffer.from([0xff, 0xfe, 0x7b]), { session: true }),
    status: 400,
    code: -32700,
  },
  // The rest of a declared body never comes: "body arriving too slowly", 408 after requestTimeoutMs (2 s here).
  { name: 'body shorter than its Content-Length', send: () => truncatedBody(), status: 408, code: -32000 },
  // JSON that is not JSON-RPC.
  { name: 'null', send: () => post('null', { session: true }), status: 400, code: -32600 },
  { name: 'a number', send: () => post('42', { session: true }), status: 400, code: -32600 },
  { name: 'a string', send: () => post('"ping"', { session: true }), status: 400, code: -32600 },
  { name: 'an empty object', send: () => post('{}', { session: true }), status: 400, code: -32600 },
  {
    name: 'jsonrpc 1.0',
    send: () => post('{"jsonrpc":"1.0","id":1,"method":"ping"}', { session: true }),
    status: 400,
    code: -32600,
  },
  {
    name: 'no method',
    send: () => post('{"jsonrpc":"2.0","id":1}', { session: true }),
    status: 400,
    code: -32600,
  },
  {
    name: 'numeric method',
    send: () => post('{"jsonrpc":"2.0","id":1,"method":7}', { session: true }),
    status: 400,
    code: -32600,
  },
  {
    name: 'object id',
    send: () => post('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', { session: true }),
    status: 400,
    code: -32600,
  },
  // Batches.
  { name: 'empty batch', send: () => post('[]', { session: true }), status: 400, code: -32600 },
  {
    name: 'batch of non-messages',
    send: () => post('[1,2,3]', { session: true }),
    status: 400,
    code: -32600,
  },
  {
    name: 'batch of 101 pings',
    send: () =>
      post(JSON.stringify(Array.from({ length: 101 }, (_, i) => JSON.parse(ping(i)))), { session: true }),
    status: 400,
    code: -32600,
  },
  // Huge ids and deep nesting.
  {
    name: 'largest safe integer id',
    send: () => post(ping(Number.MAX_SAFE_INTEGER), { session: true }),
    status: 200,
    code: 'result',
  },
  // The SDK's id schema takes safe integers only: a bigger number is not a JSON-RPC id (the table's -32600 row).
  {
    name: 'huge numeric id (1e300)',
    send: () => post(ping(1e300), { session: true }),
    status: 400,
    code: -32600,
  },
  {
    name: 'id with 400 digits',
    send: () => post(`{"jsonrpc":"2.0","id":${'9'.repeat(400)},"method":"ping"}`, { session: true }),
    status: 400,
    code: -32600,
  },
  {
    name: 'negative fractional id',
    send: () => post(ping(-1.5), { session: true }),
    status: 400,
    code: -32600,
  },
  {
    name: '10 KB string id',
    send: () => post(ping('i'.repeat(10_000)), { session: true }),
    status: 200,
    code: 'result',
  },
  {
    name: 'deeply nested tool arguments (5,000 levels)',
    send: () =>
      post(
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":${nested(5_000)}}}}`,
        {
          session: true,
        },
      ),
    status: 200,
    code: 'result',
  },
  // 30,000 levels is about as deep as a body under the 64 KiB limit can go.
  {
    name: 'deeply nested ping params (30,000 levels)',
    send: () =>
      post(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${nested(30_000)}}}`, { session: true }),
    status: 200,
    code: 'result',
  },
  // Content type.
  {
    name: 'no Content-Type',
    send: () => post(ping(1), { session: true, headers: { 'content-type': undefined } }),
    status: 415,
    code: -32000,
  },
  {
    name: 'text/plain',
    send: () => post(ping(1), { session: true, headers: { 'content-type': 'text/plain' } }),
    status: 415,
    code: -32000,
  },
  {
    name: 'form encoded',
    send: () =>
      post(ping(1), { session: true, headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    status: 415,
    code: -32000,
  },
  {
    name: 'application/jsonx',
    send: () => post(ping(1), { session: true, headers: { 'content-type': 'application/jsonx' } }),
    status: 415,
    code: -32000,
  },
  {
    name: 'application/json with charset',
    send: () =>
      post(ping(1), { session: true, headers: { 'content-type': 'application/json; charset=utf-8' } }),
    status: 200,
    code: 'result',
  },
  // Accept (2025-era requests).
  {
    name: 'no Accept',
    send: () => post(ping(1), { session: true, headers: { accept: undefined } }),
    status: 406,
    code: -32000,
  },
  {
    name: 'Accept: application/json only',
    send: () => post(ping(1), { session: true, headers: { accept: 'application/json' } }),
    status: 406,
    code: -32000,
  },
  {
    name: 'Accept: text/event-stream only',
    send: () => post(ping(1), { session: true, headers: { accept: 'text/event-stream' } }),
    status: 406,
    code: -32000,
  },
  {
    name: 'Accept: text/html',
    send: () => post(ping(1), { session: true, headers: { accept: 'text/html' } }),
    status: 406,
    code: -32000,
  },
  {
    name: 'GET stream with Accept: application/json',
    send: () => send({ method: 'GET', session: true, headers: { accept: 'application/json' } }),
    status: 406,
    code: -32000,
  },
  // Bodies over the limit.
  {
    name: 'declared Content-Length over the limit',
    send: () => post(big.toString(), { session: true }),
    status: 413,
    code: -32000,
  },
  { name: 'chunked body over the limit (no length)', send: () => chunked(), status: 413, code: -32000 },
  {
    name: 'declared Content-Length of 1 GB, no body sent',
    send: () =>
      rawRequest(port, [request({ session: true, headers: { 'content-length': String(1 << 30) } })]),
    status: 413,
    code: -32000,
  },
  // Sessions.
  {
    name: 'no session id on tools/list',
    send: () =>
      post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', {
        headers: { 'mcp-protocol-version': LEGACY_VERSION },
      }),
    status: 400,
    code: -32000,
  },
  {
    name: 'invalid session id',
    send: () => post(ping(1), { session: true, headers: { 'mcp-session-id': 'not a session' } }),
    status: 404,
    code: -32001,
  },
  {
    name: 'foreign session id (a UUID never issued)',
    send: () =>
      post(ping(1), { session: true, headers: { 'mcp-session-id': '5f0c1a6e-3d2b-4c8e-9a7f-0123456789ab' } }),
    status: 404,
    code: -32001,
  },
  {
    name: '4 KB session id',
    send: () => post(ping(1), { session: true, headers: { 'mcp-session-id': 's'.repeat(4096) } }),
    status: 404,
    code: -32001,
  },
  {
    name: 'DELETE of a foreign session',
    send: () => send({ method: 'DELETE', session: true, headers: { 'mcp-session-id': 'nope' } }),
    status: 404,
    code: -32001,
  },
  {
    name: 'unsupported MCP-Protocol-Version',
    send: () => post(ping(1), { session: true, headers: { 'mcp-protocol-version': '1999-01-01' } }),
    status: 400,
    code: 'any-error',
  },
  // Wrong methods on every path.
  {
    name: 'PUT /mcp',
    send: () => send({ method: 'PUT', body: ping(1) }),
    status: 405,
    code: -32000,
    header: ['allow', /POST/],
  },
  {
    name: 'PATCH /mcp',
    send: () => send({ method: 'PATCH', body: ping(1) }),
    status: 405,
    code: -32000,
    header: ['allow', /POST/],
  },
  {
    name: 'POST /health',
    send: () => send({ method: 'POST', path: '/health', body: '{}' }),
    status: 405,
    code: -32000,
    header: ['allow', /^GET, HEAD$/],
  },
  {
    name: 'PUT /health/live',
    send: () => send({ method: 'PUT', path: '/health/live', body: '{}' }),
    status: 405,
    code: -32000,
    header: ['allow', /^GET, HEAD$/],
  },
  {
    name: 'DELETE /health/ready',
    send: () => send({ method: 'DELETE', path: '/health/ready' }),
    status: 405,
    code: -32000,
    header: ['allow', /^GET, HEAD$/],
  },
  {
    name: 'GET /mcp stream without a session id',
    send: () =>
      send({
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-protocol-version': LEGACY_VERSION },
      }),
    status: 400,
    code: -32000,
  },
  {
    name: 'OPTIONS /mcp (CORS off)',
    send: () =>
      send({
        method: 'OPTIONS',
        headers: { origin: `http://localhost:${port}`, 'access-control-request-method': 'POST' },
      }),
    status: 405,
    code: -32000,
    header: ['allow', /POST/],
  },
  // Path tricks: paths are compared exactly.
  {
    name: '/mcp/../health',
    send: () => send({ method: 'GET', path: '/mcp/../health' }),
    status: 404,
    code: -32000,
  },
  {
    name: '//mcp',
    send: () => send({ path: '//mcp', body: ping(1), session: true }),
    status: 404,
    code: -32000,
  },
  {
    name: '/mcp/',
    send: () => send({ path: '/mcp/', body: ping(1), session: true }),
    status: 404,
    code: -32000,
  },
  {
    name: '/%6dcp',
    send: () => send({ path: '/%6dcp', body: ping(1), session: true }),
    status: 404,
    code: -32000,
  },
  {
    name: '/health%2Flive',
    send: () => send({ method: 'GET', path: '/health%2Flive' }),
    status: 404,
    code: -32000,
  },
  { name: '/HEALTH', send: () => send({ method: 'GET', path: '/HEALTH' }), status: 404, code: -32000 },
  // The absolute form (RFC 9112 §3.2.2) is accepted, but its authority names the request's host, so it
  // is checked like Host: a foreign one is refused even when the Host header is a loopback name.
  {
    name: 'absolute-form target with a foreign authority and a loopback Host',
    send: () => send({ method: 'GET', path: 'http://evil.example/health' }),
    status: 403,
    code: -32000,
  },
  { name: 'asterisk-form target', send: () => send({ method: 'GET', path: '*' }), status: 400, code: -32000 },
  {
    name: '/health?x=1 (query ignored)',
    send: () => send({ method: 'GET', path: '/health?x=1' }),
    status: 200,
    code: 'any-error',
  },
  {
    name: 'HEAD /health/live',
    send: () => send({ method: 'HEAD', path: '/health/live' }),
    status: 200,
    code: 'none',
  },
  // Oversized headers: answered by node's parser limit (16 KiB) as 431, with the transport's JSON body.
  {
    name: 'oversized header (20 KB)',
    send: () => send({ method: 'GET', path: '/health/live', headers: { 'x-big': 'b'.repeat(20_000) } }),
    status: 431,
    code: -32000,
  },
  {
    name: '400 headers of 100 bytes',
    send: () => send({ method: 'GET', path: '/health/live', headers: manyHeaders(400) }),
    status: 431,
    code: -32000,
  },
  // Host and Origin (DNS rebinding).
  {
    name: 'non-loopback Host',
    send: () => send({ method: 'GET', path: '/health/live', headers: { host: 'evil.example.com' } }),
    status: 403,
    code: -32000,
  },
  {
    name: 'Host that starts like loopback',
    send: () => send({ body: ping(1), session: true, headers: { host: '127.0.0.1.nip.io' } }),
    status: 403,
    code: -32000,
  },
  {
    name: 'no Host (HTTP/1.1)',
    send: () => send({ method: 'GET', path: '/health/live', headers: { host: undefined } }),
    status: 400,
    code: -32000,
  },
  {
    name: 'foreign Origin',
    send: () => send({ body: ping(1), session: true, headers: { origin: 'https://evil.example' } }),
    status: 403,
    code: -32000,
  },
  {
    name: 'Origin: null',
    send: () => send({ body: ping(1), session: true, headers: { origin: 'null' } }),
    status: 403,
    code: -32000,
  },
  {
    name: 'loopback Origin',
    send: () => send({ body: ping(1), session: true, headers: { origin: `http://localhost:${port}` } }),
    status: 200,
    code: 'result',
  },
  // Unparseable HTTP and slow clients.
  {
    name: 'not HTTP at all',
    send: () => rawRequest(port, ['HELLO THERE\r\n\r\n']),
    status: 400,
    code: -32000,
  },
  {
    name: 'bad Content-Length',
    send: () => rawRequest(port, [request({ session: true, headers: { 'content-length': 'abc' } })]),
    status: 400,
    code: -32000,
  },
  {
    name: 'slow client: headers a byte at a time (finishes within the headers timeout)',
    send: () => rawRequest(port, [...request({ method: 'GET', path: '/health/live' })], { pauseMs: 5 }),
    status: 200,
    code: 'any-error',
  },
  {
    name: 'slowloris: headers a byte at a time, never finished (headersTimeoutMs 1 s)',
    send: () =>
      rawRequest(port, [...'GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '.padEnd(400, 'z')], {
        pauseMs: 10,
      }),
    status: 408,
    code: -32000,
  },
];

function truncatedBody(): Promise<RawResponse> {
  // Declares 100 bytes and sends 10.
  return rawRequest(port, [request({ session: true, headers: { 'content-length': '100' } }), '{"jsonrpc"']);
}

function chunked(): Promise<RawResponse> {
  const head = request({ session: true, headers: { 'transfer-encoding': 'chunked' } });
  const piece = Buffer.alloc(16 * 1024, 'a');
  const chunks: (string | Buffer)[] = [head];
  for (let i = 0; i < 8; i++) chunks.push(`${piece.length.toString(16)}\r\n`, piece, '\r\n');
  chunks.push('0\r\n\r\n');
  return rawRequest(port, chunks);
}

function manyHeaders(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`x-h${i}`, 'v'.repeat(100)]));
}

describe('bad input over HTTP, one server for the whole table', () => {
  it('has at least 50 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(50);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const res = await c.send();
    expect(res.ended, JSON.stringify(res)).toBe('response');
    expect(res.status, res.body.slice(0, 300)).toBe(c.status);
    if (c.header) expect(res.headers[c.header[0]]).toMatch(c.header[1]);
    if (c.code === 'none') {
      expect(res.body).toBe('');
      return;
    }
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(res.body) as { result?: unknown; error?: { code: number; message: string } };
    if (c.code === 'result') expect(body.result, res.body.slice(0, 300)).toBeDefined();
    else if (c.code === 'any-error') {
      if (c.status >= 400) expect(typeof body.error?.code).toBe('number');
    } else if (c.code !== undefined) expect(body.error?.code, res.body.slice(0, 300)).toBe(c.code);
  });

  it('still serves a real client and /health/live afterwards, with nothing unhandled in the process', async () => {
    const client = await connectClient(server.url);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe(
      'still here',
    );
    await client.close();
    const legacy = await connectClient(server.url, 'legacy');
    expect(textOf(await legacy.callTool({ name: 'echo', arguments: { text: 'legacy' } }))).toBe('legacy');
    await legacy.close();
    const live = await fetch(new URL('/health/live', server.url));
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'alive' });
    expect(server.child.exitCode).toBeNull();
    expect(server.stderr()).not.toMatch(/UNHANDLED_REJECTION|UNCAUGHT_EXCEPTION/);
  });
});
