// A production entry point on the Node listener: configuration, health, drain on SIGTERM, cleanup.
import { loadConfig, z } from '@pier/config';
import { createServer, defineServer, defineTool } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { httpTransport } from '@pier/transport-http';

const config = loadConfig({
  host: { schema: z.string().default('127.0.0.1'), env: 'HOST' },
  port: { schema: z.number().int().min(0).max(65_535).default(3000), env: 'PORT' },
  publicHost: { schema: z.string().optional(), env: 'PUBLIC_HOST', description: 'Host name clients use' },
  databaseUrl: { schema: z.string().min(1), env: 'DATABASE_URL', secret: true },
});

const db = { ping: async () => true, close: async () => {} }; // your database client here

const server = createServer(
  defineServer({
    name: 'notes',
    version: '1.0.0',
    tools: [defineTool({ name: 'ping', handler: () => 'pong' })],
  }),
  {
    plugins: [
      healthPlugin({
        checks: [
          {
            name: 'database',
            critical: true,
            check: async () => ({ status: (await db.ping()) ? 'healthy' : 'unhealthy' }),
          },
        ],
      }),
    ],
  },
);
// Runs after the drain, once no request is in flight.
server.onClose(() => db.close());

await server.listen(
  httpTransport({
    host: config.host, // 0.0.0.0 in a container
    port: config.port,
    ...(config.publicHost === undefined ? {} : { allowedHosts: [config.publicHost] }),
    drainDelayMs: 5_000, // keep serving while the load balancer notices the failing readiness
  }),
);
