// Two limits on one process: a tool limit (add_note, 2 calls a day per caller) that answers a tool error
// the model reads, and a limit on tools/list per IP that refuses with HTTP 429 before anything runs.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createServer, defineServer, defineTool } from '@pier/core';
import { limitsPlugin } from '@pier/plugin-limits';
import { httpTransport } from '@pier/transport-http';
import { z } from 'zod';

const addNote = defineTool({
  name: 'add_note',
  input: { title: z.string() },
  handler: ({ title }) => `saved "${title}"`,
});

const limits = limitsPlugin({
  rules: [
    { name: 'add-note', key: 'principal', tools: 'add_note', rate: { limit: 2, windowMs: 86_400_000 } },
    { name: 'lists', key: 'ip', methods: 'tools/list', rate: { limit: 1, windowMs: 60_000 } },
  ],
});
const server = createServer(defineServer({ name: 'notes', version: '1.0.0', tools: [addNote] }), {
  plugins: [limits],
  logLevel: 'error',
  handleSignals: false,
});
const { url } = await server.listen(httpTransport({ port: 0 }));

// The official client: the third add_note is a tool error naming the limit and when to retry.
const client = new Client({ name: 'demo', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
for (const title of ['milk', 'eggs', 'bread']) {
  const result = await client.callTool({ name: 'add_note', arguments: { title } });
  console.log(result.isError === true ? 'refused:' : 'ok:', (result.content[0] as { text: string }).text);
}
await client.close();

// Raw HTTP (2025-11-25, no session): the budget in RateLimit headers, then a 429 before dispatch.
for (let attempt = 1; attempt <= 2; attempt++) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: attempt, method: 'tools/list', params: {} }),
  });
  const body = (await response.json()) as { error?: { code: number; message: string } };
  console.log(`tools/list #${attempt}: HTTP ${response.status}`);
  for (const name of ['ratelimit-policy', 'ratelimit', 'retry-after']) {
    const value = response.headers.get(name);
    if (value !== null) console.log(`  ${name}: ${value}`);
  }
  if (body.error !== undefined) console.log(`  error ${body.error.code}: ${body.error.message}`);
}
await server.close();
