// The fetch handler on Node, through @hono/node-server (on Node, createNodeHandler skips the conversion).
import { serve } from '@hono/node-server';
import { createFetchHandler } from '@pier/transport-http/fetch';
import { weatherServer } from './weather.js';

const mcp = createFetchHandler(weatherServer());
serve({ fetch: mcp.fetch, hostname: '127.0.0.1', port: 3000 });
