// Every way of serving a Pier server over HTTP, each a real server on 127.0.0.1 and a free port: the node
// listener, `createNodeHandler` on plain node:http, in Express 5 and in Fastify 5, and `createFetchHandler`
// in Hono 4 and alone (both on @hono/node-server, the standard way to run a fetch handler on Node). The
// frameworks carry their own route (`/hello`) and middleware (an `x-app` header), and mount Pier under
// `/api`, as an application would.
import { createServer as createNodeServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { PierServer } from '@pier/core';
import { createNodeHandler, type HttpHandlerOptions, httpTransport } from '@pier/transport-http';
import { createFetchHandler } from '@pier/transport-http/fetch';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';

export type MountName = 'listener' | 'node' | 'express' | 'fastify' | 'hono' | 'fetch';

export const MOUNTS: readonly MountName[] = ['listener', 'node', 'express', 'fastify', 'hono', 'fetch'];

/** Next.js serves Pier from its own process, built and started by `next-app.ts`. */
export type ServedBy = MountName | 'next';

/** The frameworks: their own routes and middleware beside Pier's. */
export const FRAMEWORKS = ['express', 'fastify', 'hono'] as const satisfies readonly MountName[];

export interface Mounted {
  readonly name: ServedBy;
  /** `http://127.0.0.1:port` */
  readonly origin: string;
  /** Where Pier's paths start: `/api` in a framework, nothing otherwise. */
  readonly prefix: string;
  /** The MCP endpoint's URL. */
  readonly mcp: string;
  close(): Promise<void>;
}

/** Serves `server` the `name` way; `options` are the listener's or the handler's (both take these). */
export async function mount(
  name: MountName,
  server: PierServer,
  options: HttpHandlerOptions = {},
): Promise<Mounted> {
  switch (name) {
    case 'listener': {
      const { url } = await server.listen(httpTransport({ ...options, port: 0 }));
      return { name, origin: new URL(url).origin, prefix: '', mcp: url, close: () => server.close() };
    }
    case 'node': {
      const handler = createNodeHandler(server, options);
      return listening(name, createNodeServer(handler), '', () => handler.close());
    }
    case 'express': {
      const handler = createNodeHandler(server, options);
      const app = express();
      app.use((_req, res, next) => {
        res.setHeader('x-app', 'express');
        next();
      });
      app.get('/hello', (_req, res) => {
        res.json({ hello: 'from express' });
      });
      app.use('/api', handler);
      return listening(name, createNodeServer(app), '/api', () => handler.close());
    }
    case 'fastify': {
      const handler = createNodeHandler(server, { ...options, basePath: '/api' });
      const app = Fastify({ forceCloseConnections: true });
      app.addHook('onRequest', async (_request, reply) => {
        reply.raw.setHeader('x-app', 'fastify');
      });
      app.get('/hello', async () => ({ hello: 'from fastify' }));
      await app.register(
        async (pier) => {
          // Pier reads and limits the body itself: Fastify's parsers stay out of this scope.
          pier.removeAllContentTypeParsers();
          pier.addContentTypeParser('*', (_request, _payload, done) => done(null));
          pier.all('/*', (request, reply) => {
            reply.hijack();
            handler(request.raw, reply.raw);
          });
        },
        { prefix: '/api' },
      );
      await app.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.server.address() as AddressInfo).port;
      const origin = `http://127.0.0.1:${port}`;
      return {
        name,
        origin,
        prefix: '/api',
        mcp: `${origin}/api/mcp`,
        close: async () => {
          await handler.close();
          await app.close();
        },
      };
    }
    case 'hono': {
      const handler = createFetchHandler(server, { ...options, basePath: '/api' });
      const app = new Hono();
      app.use(async (c, next) => {
        await next();
        c.res.headers.set('x-app', 'hono');
      });
      app.get('/hello', (c) => c.json({ hello: 'from hono' }));
      // What is not Pier's falls through to the app (here its 404).
      app.all('/api/*', async (c, next) => (await handler.handle(c.req.raw)) ?? next());
      return listening(name, honoServer(app.fetch), '/api', () => handler.close());
    }
    case 'fetch': {
      const handler = createFetchHandler(server, options);
      return listening(name, honoServer(handler.fetch), '', () => handler.close());
    }
  }
}

function honoServer(fetch: (request: Request) => Promise<Response> | Response): Server {
  // Not listening yet: `listening` binds it.
  return createAdaptorServer({ fetch }) as Server;
}

async function listening(
  name: MountName,
  server: Server,
  prefix: string,
  closePier: () => Promise<void>,
): Promise<Mounted> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    name,
    origin,
    prefix,
    mcp: `${origin}${prefix}/mcp`,
    close: async () => {
      await closePier();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
