import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
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

describe('2026-07-28 exchanges', () => {
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

  it('aborts the call’s signal when the client goes away mid-call', async () => {
    const running = await startTestServer();
    server = running;
    const { body, headers } = modernRequest('tools/call', { name: 'slow', arguments: {} });
    const leaving = new AbortController();
    const answer = fetch(server.url, { method: 'POST', headers, body, signal: leaving.signal });
    answer.catch(() => {});
    await server.host.gate.whenWaiting();
    leaving.abort();
    await expect.poll(() => running.host.gate.aborted).toBe(1);
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
