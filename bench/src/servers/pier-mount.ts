// Pier mounted with `createNodeHandler` in an application's server: `BENCH_MOUNT=express` (Express 5,
// `app.use(handler)`), `express-front` (the same handler in front of an Express app on one node:http
// server: Pier's paths never enter Express's router, every other path goes to the app through `next`),
// `fastify` (Fastify 5, a scope that hands the raw request over), or `node` (plain node:http). The same
// server as pier-fetch.ts.
import { createServer as createNodeServer } from 'node:http';
import { createNodeHandler } from '@pier/transport-http';
import express from 'express';
import Fastify from 'fastify';
import { benchPort, serveControl } from './common.js';
import { plainPierServer } from './plain-servers.js';

const server = plainPierServer();
const handler = createNodeHandler(server);
const mount = process.env.BENCH_MOUNT ?? 'node';
serveControl();
if (mount === 'express') {
  const app = express();
  app.use(handler);
  createNodeServer(app).listen(benchPort(), '127.0.0.1');
} else if (mount === 'express-front') {
  const app = express();
  app.get('/', (_req, res) => {
    res.json({ app: true });
  });
  createNodeServer((req, res) => handler(req, res, () => app(req, res))).listen(benchPort(), '127.0.0.1');
} else if (mount === 'fastify') {
  const app = Fastify();
  await app.register(async (pier) => {
    pier.removeAllContentTypeParsers();
    pier.addContentTypeParser('*', (_request, _payload, done) => done(null));
    pier.all('/*', (request, reply) => {
      reply.hijack();
      handler(request.raw, reply.raw);
    });
  });
  await app.listen({ port: benchPort(), host: '127.0.0.1' });
} else {
  createNodeServer(handler).listen(benchPort(), '127.0.0.1');
}
