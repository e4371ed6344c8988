// server.ts, run with `bun server.ts`
import { createFetchHandler } from '@pier/transport-http/fetch';
import { weatherServer } from './weather.js';

const mcp = createFetchHandler(weatherServer(), { sessions: true });
const served = Bun.serve({ hostname: '127.0.0.1', port: 3000, fetch: mcp.fetch });
console.error(`MCP on ${new URL('/mcp', served.url)}`);
