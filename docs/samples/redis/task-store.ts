// Tasks (the io.modelcontextprotocol/tasks extension) that any replica polls, answers and cancels.
import { createServer, defineServer } from '@pier/core';
import { redisTaskStore } from '@pier/redis';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const tasks = redisTaskStore({ url: REDIS_URL });
const server = createServer(defineServer({ name: 'notes', version: '1.0.0' }), {
  tasks: { store: tasks, ttlMs: 3_600_000 },
});
server.onClose(() => tasks.close());
await tasks.ready; // commands run, and cancels from other replicas are heard, from here on
await server.listen({ transport: 'streamable-http', port: 3000 });
