import type { HttpRoute } from '@pier/core/transport';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpTransportError } from './errors.js';
import { startHttpTransport } from './index.js';
import { createTestHost, startTestServer, type TestServer } from './test-host.js';
import { ask, modernRequest, rpcError } from './test-http.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const routes: HttpRoute[] = [
  { method: 'GET', path: '/health', handler: () => Response.json({ status: 'healthy' }) },
  { method: 'POST', path: '/hooks', handler: () => Response.json({ accepted: true }, { status: 202 }) },
  {
    method: 'GET',
    path: '/throws',
    handler: () => {
      throw new Error('route exploded');
    },
  },
  { method: 'GET', path: '/rejects', handler: async () => Promise.reject(new Error('route rejected')) },
];

describe('listening', () => {
  it('binds 127.0.0.1 on a free port with port 0 and reports the real address (core logs it)', async () => {
    server = await startTestServer({ port: 0 });
    expect(server.port).toBeGreaterThan(0);
    expect(server.running.address).toEqual({
      transport: 'streamable-http',
      url: `http://127.0.0.1:${server.port}/mcp`,
      host: '127.0.0.1',
      port: server.port,
    });
    // Core logs `listening transport=… url=…`; the transport adds no info line of its own with the URL.
    expect(server.host.logs.filter((log) => log.level === 'info')).toEqual([]);
    expect(server.host.logs).toContainEqual(
      expect.objectContaining({ level: 'debug', message: 'HTTP transport started' }),
    );
  });

  it('serves MCP on the configured path only', async () => {
    server = await startTestServer({ path: '/api/mcp' });
    expect(server.url).toMatch(/\/api\/mcp$/);
    const { body, headers } = modernRequest('tools/list');
    expect((await ask(server.url, { path: '/api/mcp', headers, body })).status).toBe(200);
    expect((await ask(server.url, { path: '/mcp', headers, body })).status).toBe(404);
  });

  it('rejects with HTTP_LISTEN_FAILED when the port is taken, leaving nothing open', async () => {
    server = await startTestServer();
    const host = createTestHost();
    const failure = await startHttpTransport(host, { port: server.port }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HttpTransportError);
    expect(failure).toMatchObject({ code: 'HTTP_LISTEN_FAILED' });
    expect((failure as Error).message).toContain('EADDRINUSE');
  });

  it('rejects invalid options with HTTP_OPTIONS_INVALID before binding anything', async () => {
    const failure = await startHttpTransport(createTestHost(), { port: -1, path: 'mcp' }).catch(
      (e: unknown) => e,
    );
    expect(failure).toMatchObject({ code: 'HTTP_OPTIONS_INVALID' });
    expect((failure as HttpTransportError).issues).toHaveLength(2);
  });
});

describe('routing', () => {
  it('serves plugin routes before the MCP endpoint, ignoring the query string', async () => {
    server = await startTestServer({}, { routes });
    const health = await ask(server.url, { method: 'GET', path: '/health?verbose=1' });
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: 'healthy' });
    const hook = await ask(server.url, { method: 'POST', path: '/hooks', body: 'x' });
    expect(hook.status).toBe(202);
  });

  it('answers HEAD for every GET route, without a body', async () => {
    server = await startTestServer({}, { routes });
    const head = await ask(server.url, { method: 'HEAD', path: '/health' });
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/json');
    expect(head.text).toBe('');
  });

  it('answers a wrong method with 405, an Allow header and a JSON body', async () => {
    server = await startTestServer({}, { routes });
    const wrong = await ask(server.url, { method: 'DELETE', path: '/health' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD');
    expect(wrong.json).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method Not Allowed: DELETE /health' },
      id: null,
    });
    const mcpGet = await ask(server.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    expect(mcpGet.status).toBe(405);
    expect(mcpGet.headers.allow).toBe('POST');
  });

  it('lists GET, POST and DELETE as the MCP methods in sessionful mode', async () => {
    server = await startTestServer({ sessions: true });
    const put = await ask(server.url, { method: 'PUT', body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, POST, DELETE');
  });

  it.each(['/nowhere', '/health/', '//health', '/mcp/../health', '/%68ealth', '/mcp/'])(
    'answers %s with 404 and a JSON body (paths are matched exactly)',
    async (path) => {
      server = await startTestServer({}, { routes });
      const answer = await ask(server.url, { method: 'GET', path });
      expect(answer.status).toBe(404);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(rpcError(answer.json)?.message).toMatch(/^Not Found: /);
    },
  );

  it('answers 500 with a JSON body when a route throws or rejects, and logs it', async () => {
    server = await startTestServer({}, { routes });
    for (const path of ['/throws', '/rejects']) {
      const answer = await ask(server.url, { method: 'GET', path });
      expect(answer.status).toBe(500);
      expect(rpcError(answer.json)).toEqual({ code: -32603, message: 'Internal Server Error' });
    }
    expect(server.host.logs.filter((line) => line.level === 'error')).toHaveLength(2);
  });
});

describe('a route with a plain answer (no web Request or Response on node)', () => {
  const heads: { method: string; url: string; agent: string | undefined }[] = [];
  const plainRoutes: HttpRoute[] = [
    {
      method: 'GET',
      path: '/ready',
      handler: () => {
        throw new Error('node transports call plain, not handler');
      },
      plain: (head) => {
        heads.push({ method: head.method, url: head.url, agent: head.header('user-agent') });
        return { status: 503, headers: { 'content-type': 'application/json' }, body: '{"ready":"é"}' };
      },
    },
    {
      method: 'GET',
      path: '/later',
      handler: () => new Response('web'),
      plain: async () => ({ status: 204, headers: { 'x-answer': 'plain' } }),
    },
    {
      method: 'GET',
      path: '/fails',
      handler: () => new Response('web'),
      plain: async () => Promise.reject(new Error('plain rejected')),
    },
  ];

  it('answers from plain with its status, headers and body (length counted in bytes)', async () => {
    heads.length = 0;
    server = await startTestServer({}, { routes: plainRoutes });
    const answer = await ask(server.url, {
      method: 'GET',
      path: '/ready?probe=k8s',
      headers: { 'user-agent': 'kube-probe/1.33' },
    });
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength('{"ready":"é"}')));
    expect(answer.json).toEqual({ ready: 'é' });
    expect(heads).toEqual([{ method: 'GET', url: '/ready?probe=k8s', agent: 'kube-probe/1.33' }]);
    const later = await ask(server.url, { method: 'GET', path: '/later' });
    expect(later.status).toBe(204);
    expect(later.headers['x-answer']).toBe('plain');
  });

  it('answers HEAD with the headers only', async () => {
    server = await startTestServer({}, { routes: plainRoutes });
    const head = await ask(server.url, { method: 'HEAD', path: '/ready' });
    expect(head.status).toBe(503);
    expect(head.headers['content-type']).toBe('application/json');
    expect(head.text).toBe('');
  });

  it('answers 500 with a JSON body when plain rejects, and logs it', async () => {
    server = await startTestServer({}, { routes: plainRoutes });
    const answer = await ask(server.url, { method: 'GET', path: '/fails' });
    expect(answer.status).toBe(500);
    expect(rpcError(answer.json)).toEqual({ code: -32603, message: 'Internal Server Error' });
    expect(server.host.logs.filter((line) => line.level === 'error')).toHaveLength(1);
  });
});
