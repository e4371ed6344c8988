// Replicas behind a load balancer: events raised on any replica reach every client once.
import { createServer, defineServer } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { redisEventBus } from '@pier/redis';
import { httpTransport } from '@pier/transport-http';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const bus = redisEventBus({
  url: REDIS_URL,
  onerror: (error) => console.error(error.code, error.message),
});
const server = createServer(defineServer({ name: 'notes', version: '1.0.0' }), {
  eventBus: bus,
  // Every replica signs input-required state with the same key (a secret from configuration, ≥ 32 bytes).
  requestState: { key: process.env.REQUEST_STATE_KEY ?? '' },
  plugins: [healthPlugin({ checks: [bus.healthCheck()] })],
});
server.onClose(() => bus.close());
await bus.ready; // events from other replicas are heard from here on
await server.listen(httpTransport({ port: 3000, host: '0.0.0.0', allowedHosts: ['mcp.example.com'] }));
