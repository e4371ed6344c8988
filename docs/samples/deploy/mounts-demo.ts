// The Express, Fastify, Hono and Next.js samples, each serving on 127.0.0.1 beside the app's own route:
// the app's route, Pier's health and MCP endpoint under /api, and a path below /api that nobody serves.
import { createServer as createNodeServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import * as express from './express-app.js';
import * as fastify from './fastify-app.js';
import * as hono from './hono-app.js';
import * as next from './next/route.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const callForecast = {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'forecast', arguments: { city: 'Lyon' } },
  }),
};

interface Answer {
  result?: { content?: { text?: string }[] };
  status?: string;
  hello?: string;
  error?: { message?: string };
}

async function show(name: string, request: Request, send: (request: Request) => Promise<Response>) {
  const response = await send(request);
  const type = response.headers.get('content-type')?.split(';')[0];
  let said: string | undefined;
  if (type === 'application/json') {
    const body = (await response.json()) as Answer;
    said = body.result?.content?.[0]?.text ?? body.status ?? body.hello ?? body.error?.message;
  } else {
    said = (await response.text())
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(); // an HTML page
  }
  const path = new URL(request.url).pathname;
  console.log(
    `${name.padEnd(8)} ${request.method.padEnd(4)} ${path.padEnd(18)} ${response.status} ${type}: ${said}`,
  );
}

async function tryAll(name: string, origin: string, send = (request: Request) => fetch(request)) {
  await show(name, new Request(`${origin}/hello`), send);
  await show(name, new Request(`${origin}/api/health/ready`), send);
  await show(name, new Request(`${origin}/api/mcp`, callForecast), send);
  await show(name, new Request(`${origin}/api/nope`), send);
}

const expressServer = createNodeServer(express.app);
await tryAll('express', await listen(expressServer));

await fastify.app.listen({ port: 0, host: '127.0.0.1' });
await tryAll('fastify', `http://127.0.0.1:${(fastify.app.server.address() as AddressInfo).port}`);

const honoServer = createAdaptorServer({ fetch: hono.app.fetch }) as Server;
await tryAll('hono', await listen(honoServer));

// Next.js calls the route's exports with the request; so does this.
const route = (request: Request) => (request.method === 'POST' ? next.POST(request) : next.GET(request));
await show('next', new Request('http://127.0.0.1:3000/api/health/ready'), route);
await show('next', new Request('http://127.0.0.1:3000/api/mcp', callForecast), route);

await Promise.all([express.mcp.close(), fastify.mcp.close(), hono.mcp.close()]);
await fastify.app.close();
for (const server of [expressServer, honoServer]) {
  server.closeAllConnections();
  server.close();
}
