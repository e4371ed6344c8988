import { createNodeHandler } from '@pier/transport-http';
import Fastify from 'fastify';
import { weatherServer } from './weather.js';

// Fastify keeps the prefix in the URL it hands over: tell Pier where it is mounted.
export const mcp = createNodeHandler(weatherServer(), { basePath: '/api' });

export const app = Fastify();
app.get('/hello', async () => ({ hello: 'from fastify' }));
await app.register(
  async (pier) => {
    // Pier reads and limits the body itself: Fastify's parsers stay out of this scope.
    pier.removeAllContentTypeParsers();
    pier.addContentTypeParser('*', (_request, _payload, done) => done(null));
    pier.all('/*', (request, reply) => {
      reply.hijack();
      mcp(request.raw, reply.raw);
    });
  },
  { prefix: '/api' },
);

// await app.listen({ port: 3000 });
