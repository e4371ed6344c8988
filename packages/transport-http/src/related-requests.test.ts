// A question a tool asks in a 2025 session (elicitation, sampling, roots) is a server-to-client request that
// belongs to the call: it goes on the stream of that call's POST, not on the session's GET stream, which a
// client may never open (the spec lets it). Held here with a raw client that never opens one, and with the
// official clients, SDK v2 and SDK v1.
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createServer, defineServer, defineTool, type PierServer } from '@pier/core';
import { connect } from '@pier/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTransport } from './index.js';
import { LEGACY_HEADERS, LEGACY_VERSION, StreamReader, sseEvents } from './test-http.js';

const tools = [
  defineTool({
    name: 'confirm',
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Delete it?',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      });
      return `confirmed: ${String(answer.content?.ok ?? answer.action)}`;
    },
  }),
  defineTool({
    name: 'summarize',
    handler: async (_args, ctx) => {
      const answer = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarize' } }],
        maxTokens: 20,
      });
      const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
      return `summary: ${content?.type === 'text' ? content.text : '?'}`;
    },
  }),
  defineTool({
    name: 'roots',
    handler: async (_args, ctx) =>
      `roots: ${(await ctx.listRoots()).roots.map((root) => root.uri).join(' ')}`,
  }),
];

let server: PierServer;
let url: string;
beforeAll(async () => {
  server = createServer(defineServer({ name: 'asking', version: '1.0.0', tools }), {
    handleSignals: false,
    logStream: { write: () => true },
  });
  url = (await server.listen(httpTransport({ port: 0, sessions: true }))).url;
});
afterAll(() => server.close());

/** What the raw client answers each question with. */
const ANSWERS: Record<string, Record<string, unknown>> = {
  'elicitation/create': { action: 'accept', content: { ok: true } },
  'sampling/createMessage': { role: 'assistant', model: 'm', content: { type: 'text', text: 'short' } },
  'roots/list': { roots: [{ uri: 'file:///work' }] },
};

async function post(headers: Record<string, string>, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
}

describe('a question asked inside a call, in a 2025 session', () => {
  it.each([
    ['confirm', 'elicitation/create', 'confirmed: true'],
    ['summarize', 'sampling/createMessage', 'summary: short'],
    ['roots', 'roots/list', 'roots: file:///work'],
  ])(
    '%s: goes on the call’s own stream to a raw client that never opens a GET stream',
    async (tool, method, text) => {
      const init = await post(LEGACY_HEADERS, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: LEGACY_VERSION,
          capabilities: { elicitation: {}, sampling: {}, roots: {} },
          clientInfo: { name: 'raw', version: '1' },
        },
      });
      await init.text();
      const session = {
        ...LEGACY_HEADERS,
        'mcp-session-id': init.headers.get('mcp-session-id') as string,
        'mcp-protocol-version': LEGACY_VERSION,
      };
      await (await post(session, { jsonrpc: '2.0', method: 'notifications/initialized' })).text();
      const call = await post(session, {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: tool, arguments: {} },
      });
      expect(call.headers.get('content-type')).toBe('text/event-stream');
      const stream = new StreamReader(call);
      // The question arrives on this stream, bounded in time: a server that sent it elsewhere fails here.
      const asked = await stream.readUntil((so) => so.includes(method), 3_000);
      const question = sseEvents(asked)
        .map((event) => JSON.parse(event.data) as { id?: number; method?: string })
        .find((message) => message.method === method);
      expect(question?.id).toBeTypeOf('number');
      const answered = await post(session, { jsonrpc: '2.0', id: question?.id, result: ANSWERS[method] });
      expect(answered.status).toBe(202);
      const all = await stream.readToEnd(3_000);
      const result = sseEvents(all)
        .map((event) => JSON.parse(event.data) as { id?: number; result?: { content: { text: string }[] } })
        .find((message) => message.id === 2);
      expect(result?.result?.content[0]?.text).toBe(text);
    },
  );

  it('reaches the SDK v2 client (2025 session), which answers all three', async () => {
    const { client } = await connect(url, {
      era: '2025-11-25',
      onElicit: () => ({ action: 'accept', content: { ok: true } }),
      onSample: () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'short' } }),
      roots: [{ uri: 'file:///work' }],
    });
    for (const [tool, text] of [
      ['confirm', 'confirmed: true'],
      ['summarize', 'summary: short'],
      ['roots', 'roots: file:///work'],
    ] as const) {
      const result = await client.callTool({ name: tool, arguments: {} });
      expect(result).toMatchObject({ content: [{ type: 'text', text }] });
    }
    await client.close();
  });

  it('reaches the SDK v1 client, which answers all three', async () => {
    const client = new V1Client(
      { name: 'v1', version: '1.0.0' },
      { capabilities: { elicitation: {}, sampling: {}, roots: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { ok: true } }));
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      model: 'm',
      content: { type: 'text', text: 'short' },
    }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work' }] }));
    await client.connect(new V1Transport(new URL(url)));
    for (const [tool, text] of [
      ['confirm', 'confirmed: true'],
      ['summarize', 'summary: short'],
      ['roots', 'roots: file:///work'],
    ] as const) {
      const result = await client.callTool({ name: tool, arguments: {} });
      expect(result).toMatchObject({ content: [{ type: 'text', text }] });
    }
    await client.close();
  });
});
