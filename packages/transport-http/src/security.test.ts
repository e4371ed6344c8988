import type { HttpRoute } from '@pier/core/transport';
import { afterEach, describe, expect, it } from 'vitest';
import type { HttpExchange } from './exchange.js';
import { resolveHttpOptions } from './options.js';
import { createSecurity, isLoopbackAddress } from './security.js';
import { startTestServer, type TestServer } from './test-host.js';
import {
  ask,
  initializeBody,
  LEGACY_HEADERS,
  modernRequest,
  parseRawAnswer,
  rawExchange,
  rpcError,
} from './test-http.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Just the request side of an exchange, as the checks read it. */
const fakeRequest = (headers: Record<string, string>, target = '/mcp') =>
  ({ target, header: (name: string) => headers[name] }) as unknown as HttpExchange;
const tools = modernRequest('tools/list');

describe('DNS rebinding protection on a loopback bind', () => {
  it('refuses a Host that is not a loopback name with 403 and a JSON body', async () => {
    server = await startTestServer();
    const answer = await ask(server.url, {
      headers: { ...LEGACY_HEADERS, host: 'evil.example.com' },
      body: initializeBody(),
    });
    expect(answer.status).toBe(403);
    expect(answer.json).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Forbidden: Host "evil.example.com" is not allowed' },
      id: null,
    });
  });

  it.each(['localhost', '127.0.0.1', '[::1]'])('accepts Host %s with any port', async (name) => {
    server = await startTestServer();
    const answer = await ask(server.url, {
      headers: { ...tools.headers, host: `${name}:${server.port}` },
      body: tools.body,
    });
    expect(answer.status).toBe(200);
  });

  it('accepts the names in allowedHosts as well', async () => {
    server = await startTestServer({ allowedHosts: ['mcp.internal'] });
    const answer = await ask(server.url, {
      headers: { ...tools.headers, host: 'MCP.internal:8080' },
      body: tools.body,
    });
    expect(answer.status).toBe(200);
  });

  it('refuses a foreign Origin and accepts loopback and allowed ones', async () => {
    server = await startTestServer({ allowedOrigins: ['https://app.example.com'] });
    const withOrigin = (origin: string) =>
      ask(server?.url ?? '', { headers: { ...tools.headers, origin }, body: tools.body });
    const foreign = await withOrigin('https://evil.example.com');
    expect(foreign.status).toBe(403);
    expect(rpcError(foreign.json)?.message).toBe(
      'Forbidden: Origin "https://evil.example.com" is not allowed',
    );
    expect((await withOrigin('null')).status).toBe(403);
    expect((await withOrigin('https://app.example.com:8443')).status).toBe(403);
    expect((await withOrigin(`http://localhost:${server.port}`)).status).toBe(200);
    expect((await withOrigin('https://app.example.com')).status).toBe(200);
  });

  it('protects plugin routes too', async () => {
    server = await startTestServer(
      {},
      { routes: [{ method: 'GET', path: '/health', handler: () => new Response('ok') }] },
    );
    const answer = await ask(server.url, {
      method: 'GET',
      path: '/health',
      headers: { host: 'evil.example.com' },
    });
    expect(answer.status).toBe(403);
  });
});

describe('absolute-form request targets (RFC 9112 §3.2.2)', () => {
  const routes: HttpRoute[] = [{ method: 'GET', path: '/health', handler: () => new Response('ok') }];
  const get = (port: number, target: string, host: string) =>
    rawExchange(port, [`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`]);

  it('refuses a foreign authority in the target with 403 JSON, even with a loopback Host', async () => {
    server = await startTestServer({}, { routes });
    const raw = await get(server.port, 'http://evil.example/health', `127.0.0.1:${server.port}`);
    expect(parseRawAnswer(raw)).toEqual({
      status: 403,
      body: {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Forbidden: request target host "evil.example" is not allowed' },
        id: null,
      },
    });
    const mcp = await rawExchange(server.port, [
      `POST http://evil.example:${server.port}/mcp HTTP/1.1\r\nHost: localhost\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(tools.body)}\r\n` +
        `Connection: close\r\n\r\n${tools.body}`,
    ]);
    expect(parseRawAnswer(mcp).status).toBe(403);
  });

  it('serves an absolute-form target whose authority is allowed, routed by its path', async () => {
    server = await startTestServer({ allowedHosts: ['mcp.internal'] }, { routes });
    for (const authority of [`127.0.0.1:${server.port}`, 'localhost', '[::1]:1', 'MCP.internal:8080']) {
      const raw = await get(server.port, `http://${authority}/health?x=1`, 'localhost');
      expect(raw).toMatch(/^HTTP\/1\.1 200 /);
      expect(raw.endsWith('ok')).toBe(true);
    }
  });

  it('judges repeated Host and Origin headers as node reads them: the first Host, every Origin joined', async () => {
    server = await startTestServer({}, { routes });
    const send = (headers: string) =>
      rawExchange(server!.port, [`GET /health HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`]);
    expect(await send('Host: localhost\r\nhost: evil.example\r\n')).toMatch(/^HTTP\/1\.1 200 /);
    expect(parseRawAnswer(await send('HOST: evil.example\r\nHost: localhost\r\n')).status).toBe(403);
    expect(await send('Host: localhost\r\nOrigin: http://localhost:1\r\n')).toMatch(/^HTTP\/1\.1 200 /);
    // Two Origin headers read as one value, "a, b", which is no origin at all.
    const twice = await send(
      'Host: localhost\r\nOrigin: http://localhost:1\r\norigin: http://localhost:1\r\n',
    );
    expect(parseRawAnswer(twice)).toMatchObject({ status: 403, body: { error: { message: /Origin/ } } });
    // Without a Host at all (HTTP/1.1): 400, as before.
    expect(parseRawAnswer(await send('')).status).toBe(400);
  });

  it('still refuses a foreign Host when the target authority is allowed', async () => {
    server = await startTestServer({}, { routes });
    const raw = await get(server.port, 'http://127.0.0.1/health', 'evil.example');
    expect(parseRawAnswer(raw).status).toBe(403);
  });

  it('answers 400 to an absolute form without a host or with user info', async () => {
    server = await startTestServer({}, { routes });
    for (const target of [
      'http:///health',
      'http://user@127.0.0.1/health',
      'http://127.0.0.1@evil.example/health',
    ]) {
      const answer = parseRawAnswer(await get(server.port, target, 'localhost'));
      expect(answer.status).toBe(400);
      expect(rpcError(answer.body)?.message).toMatch(/^Bad Request: unsupported request target/);
    }
  });

  it('is routed by path without a check on a wildcard bind without allowedHosts', () => {
    const security = createSecurity(resolveHttpOptions({ host: '0.0.0.0' }));
    expect(security.refusal(fakeRequest({ host: 'a.example' }, 'http://b.example/health'))).toBeUndefined();
  });

  it('enforces allowedHosts on the target authority on a wildcard bind', () => {
    const security = createSecurity(
      resolveHttpOptions({ host: '0.0.0.0', allowedHosts: ['mcp.example.com'] }),
    );
    const request = (url: string) => fakeRequest({ host: 'mcp.example.com' }, url);
    expect(security.refusal(request('http://mcp.example.com:8080/mcp'))).toBeUndefined();
    expect(security.refusal(request('/mcp'))).toBeUndefined();
    expect(security.refusal(request('https://evil.example/mcp'))).toMatch(
      /request target host "evil.example"/,
    );
  });
});

describe('checks by bind address', () => {
  it('knows the loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '0:0:0:0:0:0:0:1']) {
      expect(isLoopbackAddress(host)).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1']) {
      expect(isLoopbackAddress(host)).toBe(false);
    }
  });

  it('checks nothing on a wildcard bind without allow-lists', () => {
    const security = createSecurity(resolveHttpOptions({ host: '0.0.0.0' }));
    expect(
      security.refusal(fakeRequest({ host: 'anything.example', origin: 'https://x.example' })),
    ).toBeUndefined();
  });

  it('enforces the allow-lists on a wildcard bind when they are given', () => {
    const security = createSecurity(
      resolveHttpOptions({
        host: '0.0.0.0',
        allowedHosts: ['mcp.example.com'],
        allowedOrigins: ['app.example.com'],
      }),
    );
    expect(security.refusal(fakeRequest({ host: 'mcp.example.com' }))).toBeUndefined();
    expect(security.refusal(fakeRequest({ host: 'other.example.com' }))).toMatch(/Host/);
    expect(
      security.refusal(fakeRequest({ host: 'mcp.example.com', origin: 'https://app.example.com' })),
    ).toBeUndefined();
    expect(
      security.refusal(fakeRequest({ host: 'mcp.example.com', origin: 'https://evil.example' })),
    ).toMatch(/Origin/);
  });
});

describe('CORS', () => {
  const app = 'https://app.example.com';

  it('is off by default: no CORS headers, and OPTIONS is a wrong method', async () => {
    server = await startTestServer({ allowedOrigins: [app] });
    const answer = await ask(server.url, { headers: { ...tools.headers, origin: app }, body: tools.body });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await ask(server.url, {
      method: 'OPTIONS',
      headers: { origin: app, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(405);
  });

  it('answers a preflight from an allowed origin with the MCP headers', async () => {
    server = await startTestServer({ cors: { origins: [app], maxAgeSeconds: 120 }, sessions: true });
    const preflight = await ask(server.url, {
      method: 'OPTIONS',
      headers: {
        origin: app,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-session-id, mcp-param-region',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(app);
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, POST, DELETE, OPTIONS');
    expect(preflight.headers['access-control-max-age']).toBe('120');
    const allowed = String(preflight.headers['access-control-allow-headers']).split(', ');
    expect(allowed).toEqual(
      expect.arrayContaining([
        'Content-Type',
        'Authorization',
        'Mcp-Session-Id',
        'Mcp-Protocol-Version',
        'Mcp-Method',
        'Mcp-Name',
        'Last-Event-ID',
        'mcp-param-region',
      ]),
    );
    expect(preflight.headers['access-control-expose-headers']).toBe('Mcp-Session-Id');
  });

  it('refuses a preflight from an origin not in the list', async () => {
    server = await startTestServer({ cors: { origins: [app] } });
    const preflight = await ask(server.url, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:9999', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    expect(rpcError(preflight.json)?.code).toBe(-32000);
  });

  it('lets an allowed origin read the answer and the session id', async () => {
    server = await startTestServer({ cors: { origins: [app] }, sessions: true });
    const answer = await ask(server.url, {
      headers: { ...LEGACY_HEADERS, origin: app },
      body: initializeBody(),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(app);
    expect(answer.headers['access-control-expose-headers']).toBe('Mcp-Session-Id');
    expect(answer.headers.vary).toBe('Origin');
    expect(answer.headers['mcp-session-id']).toEqual(expect.any(String));
  });

  it("with origins '*', lets any origin that passed the Origin check read the answer", async () => {
    server = await startTestServer({ cors: { origins: '*' } });
    const local = await ask(server.url, {
      headers: { ...tools.headers, origin: 'http://localhost:5173' },
      body: tools.body,
    });
    expect(local.headers['access-control-allow-origin']).toBe('*');
    const foreign = await ask(server.url, { headers: { ...tools.headers, origin: app }, body: tools.body });
    expect(foreign.status).toBe(403);
  });
});
