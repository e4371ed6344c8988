// src/index.ts, the Worker's entry point (`main` in wrangler.toml)
import { createFetchHandler, type FetchHandler } from '@pier/transport-http/fetch';
import { weatherServer } from './weather.js';

let mcp: FetchHandler | undefined;

export default {
  fetch(request: Request): Promise<Response> {
    // Made on the first request (where the Worker's `env` bindings arrive), and kept by the isolate.
    // No `sessions: true` here: Workers cannot hold 2025 sessions, and the handler refuses them.
    mcp ??= createFetchHandler(weatherServer(), { allowedHosts: ['weather.example.workers.dev'] });
    return mcp.fetch(request);
  },
};
