import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './test-host.js';
import {
  ask,
  type HttpAsk,
  initializeBody,
  LEGACY_HEADERS,
  modernRequest,
  parseRawAnswer,
  rawExchange,
  rpcError,
} from './test-http.js';

const LIMIT = 64 * 1024;
let server: TestServer;

// The table's server keeps the default timeouts: a 512 KiB upload on a loaded CI machine must never race a
// short request timeout (which would cut the connection after the 413 was written). Only the slow-headers
// test below needs short ones, on a server of its own.
beforeAll(async () => {
  server = await startTestServer({ maxBodyBytes: LIMIT });
});
afterAll(async () => {
  await server.close();
});

const legacyCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: 'hi' } },
});
const modern = modernRequest('tools/call', { name: 'echo', arguments: { text: 'hi' } });

interface Case {
  readonly name: string;
  readonly ask: HttpAsk;
  readonly status: number;
  /** The JSON-RPC error code expected in the body. */
  readonly code: number;
}

const cases: Case[] = [
  {
    name: 'malformed JSON',
    ask: { headers: LEGACY_HEADERS, body: '{"jsonrpc":' },
    status: 400,
    code: -32700,
  },
  { name: 'empty body', ask: { headers: LEGACY_HEADERS, body: '' }, status: 400, code: -32700 },
  { name: 'whitespace body', ask: { headers: LEGACY_HEADERS, body: ' \n ' }, status: 400, code: -32700 },
  {
    name: 'JSON that is not JSON-RPC',
    ask: { headers: LEGACY_HEADERS, body: '{"hello":1}' },
    status: 400,
    code: -32600,
  },
  {
    name: '2025-era JSON-RPC request whose id is an object',
    ask: { headers: LEGACY_HEADERS, body: '{"jsonrpc":"2.0","id":{},"method":"tools/list"}' },
    status: 400,
    code: -32600,
  },
  {
    name: '2025-era JSON-RPC request of another JSON-RPC version',
    ask: {
      headers: { ...LEGACY_HEADERS, 'mcp-protocol-version': '2025-11-25' },
      body: '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
    },
    status: 400,
    code: -32600,
  },
  {
    name: 'text/plain body',
    ask: { headers: { ...LEGACY_HEADERS, 'content-type': 'text/plain' }, body: legacyCall },
    status: 415,
    code: -32000,
  },
  {
    name: 'no content type',
    ask: { headers: { accept: LEGACY_HEADERS.accept }, body: legacyCall },
    status: 415,
    code: -32000,
  },
  {
    name: '2025-era POST accepting only JSON',
    ask: { headers: { ...LEGACY_HEADERS, accept: 'application/json' }, body: legacyCall },
    status: 406,
    code: -32000,
  },
  {
    name: '2025-era POST without Accept',
    ask: { headers: { 'content-type': 'application/json' }, body: initializeBody() },
    status: 406,
    code: -32000,
  },
  {
    name: 'body over the limit, declared',
    ask: { headers: LEGACY_HEADERS, body: 'x'.repeat(LIMIT + 1) },
    status: 413,
    code: -32000,
  },
  {
    name: 'body over the limit, chunked',
    ask: { headers: LEGACY_HEADERS, body: 'x'.repeat(LIMIT * 4), chunked: true },
    status: 413,
    code: -32000,
  },
  {
    name: 'body far over the limit',
    ask: { headers: LEGACY_HEADERS, body: 'x'.repeat(2 * 1024 * 1024), chunked: true },
    status: 413,
    code: -32000,
  },
];

describe('bad input over HTTP (one server for the whole table)', () => {
  it.each(cases)('$name → $status with a JSON-RPC error body', async ({ ask: request, status, code }) => {
    const answer = await ask(server.url, request);
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.json).toMatchObject({ jsonrpc: '2.0', error: { code } });
  });

  it('answers every oversized body with 413, never a connection reset', async () => {
    for (let i = 0; i < 10; i++) {
      const answer = await ask(server.url, {
        headers: LEGACY_HEADERS,
        body: 'y'.repeat(LIMIT * 8),
        chunked: i % 2 === 0,
      });
      expect(answer.status).toBe(413);
    }
    const viaFetch = await fetch(server.url, {
      method: 'POST',
      headers: LEGACY_HEADERS,
      body: 'z'.repeat(LIMIT * 8),
    });
    expect(viaFetch.status).toBe(413);
    expect(rpcError(await viaFetch.json())?.message).toMatch(/Payload Too Large/);
  });

  it('refuses an oversized body announced with Expect: 100-continue before it is sent', async () => {
    const raw = await rawExchange(server.port, [
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: ${LEGACY_HEADERS.accept}\r\n` +
        `Content-Length: ${LIMIT * 100}\r\nExpect: 100-continue\r\n\r\n`,
    ]);
    expect(raw).not.toContain('100 Continue');
    expect(parseRawAnswer(raw)).toMatchObject({ status: 413, body: { error: { code: -32000 } } });
  });

  it('tells a client with a body within the limit to continue, and serves it', async () => {
    const answer = await ask(server.url, {
      headers: { ...LEGACY_HEADERS, expect: '100-continue', 'content-length': Buffer.byteLength(legacyCall) },
      body: legacyCall,
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"hi"');
  });

  it('serves a 2026-07-28 client that sends no Accept header at all', async () => {
    const answer = await ask(server.url, { headers: { ...modern.headers, accept: '' }, body: modern.body });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ result: { content: [{ text: 'hi' }] } });
  });

  it('answers unparseable HTTP with 400 and a JSON body', async () => {
    const raw = await rawExchange(server.port, ['GARBAGE\r\n\r\n']);
    expect(parseRawAnswer(raw)).toMatchObject({ status: 400, body: { error: { message: 'Bad Request' } } });
  });

  it('answers oversized headers with 431 and a JSON body', async () => {
    const raw = await rawExchange(server.port, [
      `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]);
    expect(parseRawAnswer(raw)).toMatchObject({ status: 431, body: { jsonrpc: '2.0' } });
  });

  it('answers HTTP/1.1 without a Host header with 400 and a JSON body', async () => {
    const raw = await rawExchange(server.port, ['GET /mcp HTTP/1.1\r\nConnection: close\r\n\r\n']);
    expect(parseRawAnswer(raw)).toMatchObject({ status: 400, body: { error: { message: /missing Host/ } } });
  });

  it('answers a client that sends its headers a byte at a time with 408 after headersTimeoutMs', async () => {
    const slow = await startTestServer({
      maxBodyBytes: LIMIT,
      headersTimeoutMs: 300,
      requestTimeoutMs: 1_000,
    });
    try {
      const request = 'GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n\r\n';
      const writes = [...request].flatMap((byte) => [byte, { delayMs: 50 }]);
      const raw = await rawExchange(slow.port, writes, 5_000);
      expect(parseRawAnswer(raw)).toMatchObject({
        status: 408,
        body: { error: { message: 'Request Timeout' } },
      });
    } finally {
      await slow.close();
    }
  });

  it('keeps serving tools/call after the whole table', async () => {
    const answer = await ask(server.url, { headers: LEGACY_HEADERS, body: legacyCall });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"hi"');
  });
});
