// The bare SDK v2 handler as a fetch handler (`createMcpHandler(...).fetch`), served by the runtime's own
// server (serve-fetch.ts): the SDK's way onto Bun, Deno and Workers. Health is a canned 200.
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { benchPort, serveControl } from './common.js';
import { serveFetch } from './serve-fetch.js';

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'bench-sdk-v2', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
});
const HEALTHY = JSON.stringify({ status: 'healthy' });

serveControl();
serveFetch(async (request) => {
  const path = new URL(request.url).pathname;
  if (path.startsWith('/health')) {
    return new Response(HEALTHY, { headers: { 'content-type': 'application/json' } });
  }
  if (path !== '/mcp') return new Response(null, { status: 404 });
  return handler.fetch(request);
}, benchPort());
