// The bare SDK v2 handler as a fetch handler (`createMcpHandler(...).fetch`), served by the runtime's own
// server (serve-fetch.ts): the SDK's way onto Bun, Deno and Workers. Health is a canned 200.
import { createMcpHandler } from '@modelcontextprotocol/server';
import { benchPort, serveControl } from './common.js';
import { sdkV2Server } from './sdk-v2-server.js';
import { serveFetch } from './serve-fetch.js';

const handler = createMcpHandler(sdkV2Server);
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
