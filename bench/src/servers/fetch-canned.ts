// The floor of a fetch handler on Node: raw.ts's canned answer as a web `Response`, served by
// `@hono/node-server` (serve-fetch.ts), which turns node's request into a web `Request` and the `Response`
// back. What Pier's fetch handler and the SDK v2's `createMcpHandler` (`toNodeHandler`, on the same
// library) both pay on Node before any MCP work. It reads the body, as raw.ts does, and parses nothing.
import { benchPort, serveControl } from './common.js';
import { serveFetch } from './serve-fetch.js';

const CANNED = JSON.stringify({
  result: { content: [{ type: 'text', text: 'hello' }] },
  jsonrpc: '2.0',
  id: 1,
});
const HEALTHY = JSON.stringify({ status: 'healthy' });

serveControl();
serveFetch(async (request) => {
  const path = new URL(request.url).pathname;
  if (path.startsWith('/health')) {
    return new Response(HEALTHY, { headers: { 'content-type': 'application/json' } });
  }
  if (request.method !== 'POST' || path !== '/mcp') return new Response(null, { status: 404 });
  await request.text();
  return new Response(CANNED, { headers: { 'content-type': 'application/json' } });
}, benchPort());
