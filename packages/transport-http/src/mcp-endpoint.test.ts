import type { IncomingMessage } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { claimsModernEnvelope, plainLegacyMessage } from './mcp-endpoint.js';
import { startTestServer, type TestServer } from './test-host.js';
import { ask, LEGACY_HEADERS, modernRequest } from './test-http.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Era = 'auto' | 'legacy';

async function v2Client(
  url: string,
  mode: Era,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'v2-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

function textOf(result: unknown): string | undefined {
  return (result as { content?: { type: string; text?: string }[] }).content?.[0]?.text;
}

describe.each([
  { sessions: false, label: 'stateless' },
  { sessions: true, label: 'sessionful' },
])('$label endpoint', ({ sessions }) => {
  it('serves an SDK v2 client that negotiates the 2026-07-28 revision', async () => {
    server = await startTestServer({ sessions });
    const { client } = await v2Client(server.url, 'auto');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'ask',
      'echo',
      'header',
      'notify',
      'reconnect',
      'slow',
    ]);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'modern' } }))).toBe('modern');
    await client.close();
  });

  it('serves an SDK v2 client pinned to the 2025 handshake', async () => {
    server = await startTestServer({ sessions });
    const { client, transport } = await v2Client(server.url, 'legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(transport.sessionId !== undefined).toBe(sessions);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(6);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'legacy' } }))).toBe('legacy');
    await client.close();
  });

  it('serves the SDK v1 client (2025 era only)', async () => {
    server = await startTestServer({ sessions });
    const client = new V1Client({ name: 'v1-test', version: '1.0.0' });
    const transport = new V1Transport(new URL(server.url));
    await client.connect(transport);
    expect(transport.sessionId !== undefined).toBe(sessions);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo');
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'v1' } }))).toBe('v1');
    await client.close();
  });

  it('streams progress before the result, in both eras', async () => {
    server = await startTestServer({ sessions });
    for (const mode of ['auto', 'legacy'] as const) {
      const { client } = await v2Client(server.url, mode);
      const progress: number[] = [];
      const result = await client.callTool(
        { name: 'notify', arguments: {} },
        { onprogress: (update) => progress.push(update.progress) },
      );
      expect(textOf(result)).toBe('notified');
      expect(progress).toEqual([1]);
      await client.close();
    }
  });

  it('reports a tool that does not exist as a JSON-RPC error, and keeps serving', async () => {
    server = await startTestServer({ sessions });
    const { client } = await v2Client(server.url, 'auto');
    await expect(client.callTool({ name: 'missing', arguments: {} })).rejects.toThrow();
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe(
      'still here',
    );
    await client.close();
  });
});

describe('skipping the first classification', () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  const bodies: unknown[] = [
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } },
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } },
    },
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': 42 } },
    },
    {
      jsonrpc: '2.0',
      method: 'notifications/initialized',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-06-18' } },
    },
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: meta, protocolVersion: '2025-11-25' } },
    { jsonrpc: '2.0', id: 1, method: 'tools/list', result: {}, params: { _meta: meta } },
    { id: 1, method: 'tools/list', params: { _meta: meta } },
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: [] } },
    [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }],
  ];

  it.each(bodies.map((body) => [JSON.stringify(body), body]))(
    'never diverts 2025-era traffic: %s',
    (_label, body) => {
      for (const protocolVersionHeader of [undefined, '2025-11-25', '2026-07-28']) {
        const outcome = classifyInboundRequest({
          httpMethod: 'POST',
          body,
          ...(protocolVersionHeader !== undefined && { protocolVersionHeader }),
        });
        if (claimsModernEnvelope(body)) expect(outcome.kind).not.toBe('legacy');
      }
    },
  );

  it('recognizes an ordinary 2026-07-28 request', () => {
    expect(claimsModernEnvelope(bodies[0])).toBe(true);
    expect(claimsModernEnvelope(bodies[7])).toBe(false);
  });
});

describe('skipping the classifier for everyday 2025-era messages', () => {
  const claim = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  const bodies: unknown[] = [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } },
    { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { progressToken: 3 } } },
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: claim } },
    { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: claim } },
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
    { jsonrpc: '2.0', id: 1, result: {} },
    { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'no' } },
    { jsonrpc: '2.0', id: 1, method: 'tools/list', result: {} },
    { jsonrpc: '2.0', id: {}, method: 'tools/list' },
    { jsonrpc: '2.0', id: null, method: 'tools/list' },
    { jsonrpc: '1.0', id: 1, method: 'tools/list' },
    { jsonrpc: '2.0', id: 1, method: 'tools/list', extra: true },
    { id: 1, method: 'tools/list' },
    [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    'tools/list',
  ];
  const versions = [undefined, '2025-11-25', '2025-06-18', '2026-07-28', '2024-01-01', ' 2025-11-25', 'x'];

  it.each(bodies.map((body) => [JSON.stringify(body), body]))(
    'routes to 2025-era serving only what the SDK classifies as 2025-era: %s',
    (_label, body) => {
      for (const version of versions) {
        const req = { headers: version === undefined ? {} : { 'mcp-protocol-version': version } };
        const outcome = classifyInboundRequest({
          httpMethod: 'POST',
          body,
          ...(version !== undefined && { protocolVersionHeader: version }),
        });
        if (plainLegacyMessage(req as IncomingMessage, body) !== undefined) {
          expect(outcome.kind).toBe('legacy');
        }
      }
    },
  );

  it('takes the short way for ordinary requests and notifications', () => {
    const req = { headers: { 'mcp-protocol-version': '2025-11-25' } } as unknown as IncomingMessage;
    expect(plainLegacyMessage(req, bodies[0])).toEqual([bodies[0]]);
    expect(plainLegacyMessage(req, bodies[2])).toEqual([bodies[2]]);
    expect(plainLegacyMessage(req, bodies[4])).toBeUndefined();
    expect(plainLegacyMessage(req, bodies[10])).toBeUndefined();
  });
});

describe('2026-07-28 exchanges without a web Request', () => {
  it('gives handlers the HTTP request (ctx.http.req) with its headers', async () => {
    server = await startTestServer();
    const client = new Client(
      { name: 'v2-test', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { 'x-pier-test': 'modern header' } },
    });
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(textOf(await client.callTool({ name: 'header', arguments: {} }))).toBe('modern header');
    await client.close();
  });

  it('closes the per-request SDK server when the client goes away mid-call', async () => {
    server = await startTestServer();
    const { body, headers } = modernRequest('tools/call', { name: 'slow', arguments: {} });
    const leaving = new AbortController();
    const answer = fetch(server.url, { method: 'POST', headers, body, signal: leaving.signal });
    answer.catch(() => {});
    await server.host.gate.whenWaiting();
    const sdkServer = server.host.servers.at(-1);
    const closed = new Promise<void>((resolve) => {
      const previous = sdkServer?.server.onclose;
      if (sdkServer)
        sdkServer.server.onclose = () => {
          previous?.();
          resolve();
        };
    });
    leaving.abort();
    await closed;
    server.host.gate.release();
    // The endpoint keeps serving.
    const echo = modernRequest('tools/call', { name: 'echo', arguments: { text: 'after' } }, 2);
    const next = await ask(server.url, echo);
    expect(next.status).toBe(200);
    expect(next.text).toContain('after');
  });

  it('answers a 2025-era notification with 202 and a 2025-era call with its result, stateless', async () => {
    server = await startTestServer();
    const notification = await ask(server.url, {
      headers: LEGACY_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(notification.status).toBe(202);
    const call = await ask(server.url, {
      headers: { ...LEGACY_HEADERS, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'plain' } },
      }),
    });
    expect(call.status).toBe(200);
    expect(call.json).toMatchObject({ id: 7, result: { content: [{ text: 'plain' }] } });
  });
});
