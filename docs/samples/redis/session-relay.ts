// 2025-era sessions served by any replica, with no load-balancer affinity.
import { createServer, defineServer } from '@pier/core';
import { redisEventBus, redisSessionRelay } from '@pier/redis';
import { httpTransport } from '@pier/transport-http';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const bus = redisEventBus({ url: REDIS_URL });
const relay = redisSessionRelay({
  url: REDIS_URL,
  // Where the other replicas reach this one (in Kubernetes, the pod IP from the downward API).
  advertiseUrl: `http://${process.env.POD_IP}:3000/mcp`,
});
const server = createServer(defineServer({ name: 'notes', version: '1.0.0' }), { eventBus: bus });
server.onClose(async () => {
  await relay.close();
  await bus.close();
});
await Promise.all([bus.ready, relay.ready]);
await server.listen(httpTransport({ host: '0.0.0.0', port: 3000, sessions: true, sessionRelay: relay }));
