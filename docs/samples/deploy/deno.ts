// server.ts, run with `deno run --allow-net --allow-env server.ts`
import { createFetchHandler } from '@pier/transport-http/fetch';
import { weatherServer } from './weather.js';

const mcp = createFetchHandler(weatherServer(), { sessions: true });
Deno.serve({ hostname: '127.0.0.1', port: 3000 }, mcp.fetch);
