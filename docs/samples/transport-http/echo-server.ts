import { createServer, defineServer, defineTool } from '@pier/core';
import { httpTransport } from '@pier/transport-http';
import { z } from 'zod';

const echo = defineTool({
  name: 'echo',
  description: 'Says it back',
  input: { text: z.string() },
  handler: async ({ text }) => text,
});

const server = createServer(defineServer({ name: 'echo', version: '1.0.0', tools: [echo] }));
const { url } = await server.listen(httpTransport({ port: 3000 }));
console.error(`MCP on ${url}`);
