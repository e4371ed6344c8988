// Test fixture: one replica of a small notes server in its own process (so that a test can SIGKILL it),
// with 2025-era sessions on and, when RELAY=1, the Redis session relay. Prints `READY <port>` on stdout.
// Runs the built packages (`pnpm build` first; the package's test task depends on it).
import { createServer, defineResource, defineServer, defineTool } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { redisSessionRelay } from '@pier/redis';
import { httpTransport } from '@pier/transport-http';

const name = process.env.REPLICA_ID ?? 'r?';
const relay =
  process.env.RELAY === '1'
    ? redisSessionRelay({
        url: process.env.REDIS_URL,
        nodeId: name,
        prefix: process.env.PREFIX ?? 'pier:session:',
        onerror: (error) => process.stderr.write(`${name}: ${error.code} ${error.message}\n`),
      })
    : undefined;
const URI = 'notes://index';
let server;
server = createServer(
  defineServer({
    name: 'notes',
    version: '1.0.0',
    tools: [
      defineTool({ name: 'whoami', handler: () => name }),
      defineTool({
        name: 'greet',
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit(
            {
              message: 'Name?',
              requestedSchema: {
                type: 'object',
                properties: { name: { type: 'string' } },
                required: ['name'],
              },
            },
            { key: 'name' },
          );
          return `Hello ${String(answer.content?.name)}, from ${name}`;
        },
      }),
      defineTool({
        name: 'bump',
        handler: async () => {
          await server.notifyResourceUpdated(URI);
          return name;
        },
      }),
    ],
    resources: [defineResource({ name: 'index', uri: URI, subscribable: true, handler: () => name })],
  }),
  { handleSignals: false, logStream: process.stderr, plugins: [healthPlugin({ checks: [] })] },
);
await relay?.ready;
const address = await server.listen(
  httpTransport({
    port: 0,
    sessions: true,
    maxSessions: Number(process.env.MAX_SESSIONS ?? 10_000),
    drainDelayMs: 0,
    ...(relay && { sessionRelay: relay }),
  }),
);
process.stdout.write(`READY ${address.port}\n`);
process.once('SIGTERM', async () => {
  await server.close();
  await relay?.close();
  process.exit(0);
});
