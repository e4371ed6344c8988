import { createFetchHandler } from '@pier/transport-http/fetch';
import { Hono } from 'hono';
import { weatherServer } from './weather.js';

// Hono's `app.all('/api/*')` keeps the prefix in the request: tell Pier where it is mounted.
export const mcp = createFetchHandler(weatherServer(), { basePath: '/api' });

export const app = new Hono();
app.get('/hello', (c) => c.json({ hello: 'from hono' }));
// `handle` resolves undefined for a path that is not Pier's: Hono goes on to its own routes (here its 404).
app.all('/api/*', async (c, next) => (await mcp.handle(c.req.raw)) ?? next());

// Bun, Deno, Workers: `export default app`. Node: serve({ fetch: app.fetch, port: 3000 }) from @hono/node-server.
