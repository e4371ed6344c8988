// The bench builds its requests by hand (the load generator cannot run an SDK client per request).
// These tests keep them identical to what the SDK v2 Client sends, in both eras.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { CLIENT_INFO, ECHO_TEXT, legacyEcho, type McpRequest, modernEcho } from './load/requests.js';

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'envelope', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
});

/** Calls echo with a real v2 Client and returns the tools/call request it sent, as sent. */
async function capturedToolsCall(
  client: Client,
): Promise<{ headers: Record<string, string>; body: { id: number } }> {
  const sent: { headers: Record<string, string>; body: string }[] = [];
  const capture = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(url, init);
    if (typeof init?.body === 'string')
      sent.push({ headers: Object.fromEntries(request.headers), body: init.body });
    return handler.fetch(request);
  };
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), { fetch: capture }),
  );
  await client.callTool({ name: 'echo', arguments: { text: ECHO_TEXT } });
  await client.close();
  const call = sent.find((s) => s.body.includes('"tools/call"'));
  if (!call) throw new Error('the client sent no tools/call');
  return { headers: call.headers, body: JSON.parse(call.body) };
}

function asSent(request: McpRequest): { headers: Record<string, string>; body: unknown } {
  return { headers: request.headers, body: JSON.parse(request.body) };
}

describe('the requests the load generator sends', () => {
  it('are the 2026-07-28 tools/call of a v2 Client pinned to that revision', async () => {
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const sent = await capturedToolsCall(client);
    expect(asSent(modernEcho(sent.body.id))).toEqual(sent);
  });

  it('are the 2025-11-25 tools/call of a v2 Client in its default (legacy) mode, without a session', async () => {
    const sent = await capturedToolsCall(new Client(CLIENT_INFO));
    expect(asSent(legacyEcho(sent.body.id))).toEqual(sent);
  });
});
