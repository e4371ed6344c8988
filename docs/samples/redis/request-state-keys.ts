// Input-required keys that the replicas rotate together: every replica reads them from Redis.
import { createServer, defineServer } from '@pier/core';
import { redisRequestStateKeys } from '@pier/redis';

const keys = redisRequestStateKeys({
  url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  key: 'notes:request-state-key',
});
const server = createServer(defineServer({ name: 'notes', version: '1.0.0' }), { requestState: { keys } });
server.onClose(() => keys.close());
await server.listen({ transport: 'streamable-http', port: 3000 });

// Later, from an admin job (any process with the same options): await keys.rotate();
