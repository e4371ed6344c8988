// What an MCP client sends over streamable HTTP, without a client library: one POST per message.
import { createServer, defineServer, defineTool } from '@pier/core';
import { httpTransport } from '@pier/transport-http';
import { z } from 'zod';

const echo = defineTool({ name: 'echo', input: { text: z.string() }, handler: ({ text }) => text });
const server = createServer(defineServer({ name: 'echo', version: '1.0.0', tools: [echo] }), {
  logLevel: 'warn',
  handleSignals: false,
});
const { url } = await server.listen(httpTransport({ port: 0 }));

const post = async (headers: Record<string, string>, body: unknown) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  console.log(response.status, JSON.stringify(await response.json()));
};

// A 2025-era client, stateless (the default): the revision travels in a header.
await post(
  { 'mcp-protocol-version': '2025-11-25' },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
);
// Malformed JSON-RPC, and a path that is not the endpoint: JSON errors, never a crash.
await post({ 'mcp-protocol-version': '2025-11-25' }, { hello: 'world' });
const missing = await fetch(new URL('/nope', url));
console.log(missing.status, JSON.stringify(await missing.json()));
await server.close();
