import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { claimsModernEnvelope } from './mcp-endpoint.js';
import { startTestServer, type TestServer } from './test-host.js';

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
