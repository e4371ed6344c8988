// The bare SDK v2 server with the echo tool, as `createMcpHandler` wants one per request (sdk-v2-fetch.ts).
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

/** A fresh SDK v2 server with the echo tool, as `createMcpHandler` wants one per request. */
export function sdkV2Server(): McpServer {
  const server = new McpServer({ name: 'bench-sdk-v2', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}
