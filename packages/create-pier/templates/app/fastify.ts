// The application: a Fastify 5 app with routes and hooks of its own, and the MCP server mounted in it.
// Pier's scope hands the raw request and response over: Pier reads and limits the body itself.
import type { CreateServerOptions } from '@pier/core';
import { createNodeHandler } from '@pier/transport-http';
import Fastify from 'fastify';
import { pierServer } from './pier.js';
import type { Settings } from './server.js';

export function createApp(settings: Settings, options: CreateServerOptions = {}) {
  const mcp = createNodeHandler(pierServer(settings, options));
  const app = Fastify();
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('x-app', '__NAME__');
  });
  app.get('/', async () => ({ name: '__NAME__', mcp: '/mcp' }));
// #if health
  // MCP at /mcp and the health endpoints at /health/….
  const paths = ['/mcp', '/health', '/health/*'];
// #else
  // MCP at /mcp.
  const paths = ['/mcp'];
// #endif
  void app.register(async (pier) => {
    pier.removeAllContentTypeParsers();
    pier.addContentTypeParser('*', (_request, _payload, done) => done(null));
    for (const url of paths) {
      pier.all(url, (request, reply) => {
        reply.hijack();
        mcp(request.raw, reply.raw);
      });
    }
  });
  // Closing the app drains MCP first (requests in flight finish).
  app.addHook('preClose', () => mcp.close());
  return app;
}

/** Serves the app on 127.0.0.1 (port 0: a free one); `close()` drains MCP, then stops listening. */
export async function start(settings: Settings, options: { port: number; server?: CreateServerOptions }) {
  const app = createApp(settings, options.server);
  const url = await app.listen({ host: '127.0.0.1', port: options.port });
  return { url, close: () => app.close() };
}
