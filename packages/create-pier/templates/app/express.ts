// The application: an Express 5 app with routes and middleware of its own, and the MCP server mounted in
// it. Pier reads and limits the request body itself: mount it before body parsers such as express.json().
import type { AddressInfo } from 'node:net';
import type { CreateServerOptions } from '@pier/core';
import { createNodeHandler } from '@pier/transport-http';
import express from 'express';
import { pierServer } from './pier.js';
import type { Settings } from './server.js';

export function createApp(settings: Settings, options: CreateServerOptions = {}) {
  const mcp = createNodeHandler(pierServer(settings, options));
  const app = express();
  app.use((_request, response, next) => {
    response.setHeader('x-app', '__NAME__');
    next();
  });
// #if health
  // MCP at /mcp and the health endpoints at /health/…; other paths go on to the app's own routes.
// #else
  // MCP at /mcp; other paths go on to the app's own routes.
// #endif
  app.use(mcp);
  app.use(express.json());
  app.get('/', (_request, response) => {
    response.json({ name: '__NAME__', mcp: '/mcp' });
  });
  // close() drains MCP (requests in flight finish) and stops the server.
  return { app, close: () => mcp.close() };
}

/** Serves the app on 127.0.0.1 (port 0: a free one); `close()` drains MCP, then stops listening. */
export function start(settings: Settings, options: { port: number; server?: CreateServerOptions }) {
  const { app, close } = createApp(settings, options.server);
  return new Promise<{ url: string; close(): Promise<void> }>((resolve, reject) => {
    const listener = app.listen(options.port, '127.0.0.1', (error) => {
      if (error) return reject(error);
      const { port } = listener.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: async () => {
          await close();
          await new Promise((closed) => listener.close(closed));
        },
      });
    });
  });
}
