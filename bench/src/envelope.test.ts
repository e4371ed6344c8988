// The bench builds its requests by hand (the load generator cannot run an SDK client per request).
// These tests keep them identical to what the SDK v2 Client sends, in both eras.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { createServer, defineServer, defineTool } from '@pier/core';
import { httpTransport } from '@pier/transport-http';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import {
  ASKING_TOOL,
  askingCall,
  askingRetry,
  CLIENT_INFO,
  ECHO_TEXT,
  inputRequired,
  legacyCall,
  legacyEcho,
  type McpRequest,
  modernCall,
  modernEcho,
} from './load/requests.js';
import { ECHO_INPUT, echo } from './servers/echo-tool.js';
import { SHAPES } from './shapes.js';

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'envelope', version: '1.0.0' });
  for (const name of ['echo', 'echo_ctx']) {
    server.registerTool(name, { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
      content: [{ type: 'text', text }],
    }));
  }
  return server;
});

/** The `ctx` shape: the client asks for progress and log messages. */
const CTX_CALL = SHAPES.find((shape) => shape.id === 'ctx')!.call;

/**
 * Calls echo (or `call`'s tool, with its progress and log level) with a real v2 Client and returns the
 * tools/call request it sent, as sent.
 */
async function capturedToolsCall(
  client: Client,
  call?: typeof CTX_CALL,
  modern = false,
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
  if (call === undefined) await client.callTool({ name: 'echo', arguments: { text: ECHO_TEXT } });
  else {
    // As a user asks for both: the log level in the request's `_meta` (2026-07-28; a 2025 client sets it
    // once per session), progress with a handler.
    await client.callTool(
      {
        name: call.tool,
        arguments: { text: ECHO_TEXT },
        ...(modern && { _meta: { 'io.modelcontextprotocol/logLevel': call.logLevel } }),
      },
      { onprogress: () => {} },
    );
  }
  await client.close();
  const request = sent.find((s) => s.body.includes('"tools/call"'));
  if (!request) throw new Error('the client sent no tools/call');
  return { headers: request.headers, body: JSON.parse(request.body) };
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

  it('are the 2026-07-28 tools/call of the ctx shape (progress and log level asked for)', async () => {
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const sent = await capturedToolsCall(client, CTX_CALL, true);
    expect(asSent(modernCall(sent.body.id, CTX_CALL))).toEqual(sent);
  });

  it('are the 2025-11-25 tools/call of the ctx shape (progress asked for)', async () => {
    const sent = await capturedToolsCall(new Client(CLIENT_INFO), CTX_CALL);
    expect(asSent(legacyCall(sent.body.id, CTX_CALL))).toEqual(sent);
  });

  it('are the two rounds of an input-required exchange of a v2 Client pinned to 2026-07-28', async () => {
    const server = createServer(
      defineServer({
        name: 'asking',
        version: '1.0.0',
        tools: [
          defineTool({
            name: ASKING_TOOL,
            input: ECHO_INPUT,
            handler: async (args, ctx) => {
              const schema = {
                type: 'object' as const,
                properties: { confirm: { type: 'boolean' as const } },
              };
              const answer = await ctx.elicit(
                { message: 'Echo?', requestedSchema: schema },
                { key: 'confirm' },
              );
              return answer.content?.confirm === true ? echo(args) : 'declined';
            },
          }),
        ],
      }),
      { handleSignals: false, logStream: { write: () => true } },
    );
    const { url } = await server.listen(httpTransport({ port: 0 }));
    try {
      const sent: { headers: Record<string, string>; body: string; answer: string }[] = [];
      const capture = async (target: string | URL, init?: RequestInit): Promise<Response> => {
        const response = await fetch(target, init);
        if (typeof init?.body === 'string' && init.body.includes('"tools/call"')) {
          const headers = Object.fromEntries(new Request(target, init).headers);
          sent.push({ headers, body: init.body, answer: await response.clone().text() });
        }
        return response;
      };
      const client = new Client(CLIENT_INFO, {
        capabilities: { elicitation: {} },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      });
      client.setRequestHandler('elicitation/create', async () => ({
        action: 'accept',
        content: { confirm: true },
      }));
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: capture }));
      const result = await client.callTool({ name: ASKING_TOOL, arguments: { text: ECHO_TEXT } });
      await client.close();
      expect(result.content).toEqual([{ type: 'text', text: ECHO_TEXT }]);

      const [one, two] = sent;
      expect(sent).toHaveLength(2);
      const asked = inputRequired(JSON.parse(one!.answer));
      expect(asked?.key).toBe('confirm');
      const id = (round: { body: string }): number => (JSON.parse(round.body) as { id: number }).id;
      expect(asSent(askingCall(id(one!)))).toEqual({ headers: one!.headers, body: JSON.parse(one!.body) });
      expect(asSent(askingRetry(id(two!), asked!.key, asked!.requestState))).toEqual({
        headers: two!.headers,
        body: JSON.parse(two!.body),
      });
    } finally {
      await server.close();
    }
  });
});
