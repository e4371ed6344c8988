// Any host that calls `fetch(request)` and serves the Response: Pier's paths first, then your own.
import { createFetchHandler } from '@pier/transport-http/fetch';
import { weatherServer } from './weather.js';

const mcp = createFetchHandler(weatherServer(), { basePath: '/api' });

export default {
  async fetch(request: Request): Promise<Response> {
    // `handle` answers /api/mcp and /api/health/…, and resolves undefined for anything else.
    const answer = await mcp.handle(request);
    if (answer !== undefined) return answer;
    return new Response('my own app', { headers: { 'content-type': 'text/plain' } });
  },
};
