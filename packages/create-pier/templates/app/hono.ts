// The application: a Hono 4 app with routes and middleware of its own, and the MCP server mounted in it
// as a web-standard fetch handler (served on Node by @hono/node-server).
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { CreateServerOptions } from '@pier/core';
import { createFetchHandler } from '@pier/transport-http/fetch';
import { Hono } from 'hono';
import { pierServer } from './pier.js';
import type { Settings } from './server.js';

export function createApp(settings: Settings, options: CreateServerOptions = {}) {
  const mcp = createFetchHandler(pierServer(settings, options), { sessions: true });
  const app = new Hono();
  app.use(async (context, next) => {
    await next();
    context.header('x-app', '__NAME__');
  });
  app.get('/', (context) => context.json({ name: '__NAME__', mcp: '/mcp' }));
// #if health
  // MCP at /mcp and the health endpoints at /health/…; other paths go on to the app's own routes.
// #else
  // MCP at /mcp; other paths go on to the app's own routes.
// #endif
  app.all('*', async (context, next) => (await mcp.handle(context.req.raw)) ?? next());
  // close() drains MCP (requests in flight finish) and stops the server.
  return { app, close: () => mcp.close() };
}

/** Serves the app on 127.0.0.1 (port 0: a free one); `close()` drains MCP, then stops listening. */
export function start(settings: Settings, options: { port: number; server?: CreateServerOptions }) {
  const { app, close } = createApp(settings, options.server);
  return new Promise<{ url: string; close(): Promise<void> }>((resolve) => {
    const listener = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: options.port }, (info: AddressInfo) =>
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: async () => {
          await close();
          await new Promise((closed) => listener.close(closed));
        },
      }),
    );
  });
}
