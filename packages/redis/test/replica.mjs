// Test fixture: one replica of a small notes server in its own process (so that a test can SIGKILL it),
// with 2025-era sessions on and, when RELAY=1, the Redis session relay; with TASK_PREFIX, tasks in Redis
// under that prefix (TASK_LEASE_MS: their `leaseMs`). Prints `READY <port>` on stdout.
// Runs the built packages (`pnpm build` first; the package's test task depends on it).
import { createServer, defineResource, defineServer, defineTool } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { redisEventBus, redisSessionRelay, redisTaskStore } from '@pier/redis';
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
// BUS=1: change events cross replicas on the Redis event bus too (the bench's notification latency).
const bus =
  process.env.BUS === '1'
    ? redisEventBus({
        url: process.env.REDIS_URL,
        nodeId: name,
        stream: `${process.env.PREFIX ?? 'pier:'}events`,
      })
    : undefined;
const tasks = process.env.TASK_PREFIX
  ? redisTaskStore({ url: process.env.REDIS_URL, prefix: process.env.TASK_PREFIX })
  : undefined;
const URI = 'notes://index';
// TRACE=1 (bench only): when an event passes each stage of this process, on stderr as
// `TRACE <replica> <stage> <ms>` on the clock every process of the machine shares. Stages: `raise` (the
// bus's publish), `xadd-out` (the XADD written to Redis's socket), `xread-in` (another replica's event read
// from Redis), `deliver` (handed to local listeners), `sse-out` (written to a listen stream's socket).
// With TRACE_LOG=<file>, the stamps are kept in memory and written to the file at exit instead, so that
// tracing wakes no other process while the bench measures.
const stamps = [];
const stamp = process.env.TRACE_LOG
  ? (stage) => stamps.push({ stage, at: performance.timeOrigin + performance.now() })
  : (stage) =>
      process.stderr.write(
        `TRACE ${name} ${stage} ${(performance.timeOrigin + performance.now()).toFixed(3)}\n`,
      );
if (process.env.TRACE_LOG) {
  const { writeFileSync } = await import('node:fs');
  process.once('exit', () => writeFileSync(process.env.TRACE_LOG, JSON.stringify(stamps)));
}
if (process.env.TRACE === '1') {
  const { Socket } = await import('node:net');
  const textOf = (chunk) =>
    typeof chunk === 'string'
      ? chunk
      : chunk instanceof Uint8Array
        ? Buffer.from(chunk).toString('latin1')
        : '';
  const write = Socket.prototype.write;
  Socket.prototype.write = function (chunk, ...rest) {
    const text = textOf(chunk);
    if (text.includes('XADD')) stamp('xadd-out');
    else if (text.includes('notifications/resources/updated')) stamp('sse-out');
    return write.call(this, chunk, ...rest);
  };
  const emit = Socket.prototype.emit;
  Socket.prototype.emit = function (event, chunk, ...rest) {
    if (event === 'data' && textOf(chunk).includes('resource_updated')) stamp('xread-in');
    return emit.call(this, event, chunk, ...rest);
  };
}
// GC_LOG=<file> (bench only): every garbage collection of this process, written to the file at exit, so that
// the bench can line up slow events with pauses. Collected in memory: nothing is written while measuring.
if (process.env.GC_LOG) {
  const { PerformanceObserver } = await import('node:perf_hooks');
  const { writeFileSync } = await import('node:fs');
  const pauses = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      pauses.push({
        at: performance.timeOrigin + entry.startTime,
        ms: entry.duration,
        kind: entry.detail?.kind,
      });
    }
  }).observe({ entryTypes: ['gc'] });
  process.once('exit', () => writeFileSync(process.env.GC_LOG, JSON.stringify(pauses)));
}
const tracedBus =
  bus && process.env.TRACE === '1'
    ? {
        publish: (event) => {
          stamp('raise');
          bus.publish(event);
        },
        subscribe: (listener) =>
          bus.subscribe((event) => {
            stamp('deliver');
            listener(event);
          }),
        flush: () => bus.flush(),
      }
    : bus;
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
      // `bump_ctx` declares its context, so every call builds an SDK server; `bump` does not, and the
      // direct path serves it (the bench raises with both).
      defineTool({
        name: 'bump_ctx',
        handler: async (_args, _ctx) => {
          const at = performance.timeOrigin + performance.now();
          await server.notifyResourceUpdated(URI);
          return String(at);
        },
      }),
      defineTool({
        name: 'bump',
        handler: async () => {
          // When it was raised, on a clock every process on this machine shares (for the bench).
          const at = performance.timeOrigin + performance.now();
          await server.notifyResourceUpdated(URI);
          return String(at);
        },
      }),
      defineTool({
        name: 'slow',
        task: 'required',
        // Runs until aborted, at most 30 s.
        handler: (_args, ctx) =>
          new Promise((resolve) => {
            const timer = setTimeout(() => resolve(`slow done by ${name}`), 30_000);
            ctx.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              resolve('aborted');
            });
          }),
      }),
    ],
    resources: [defineResource({ name: 'index', uri: URI, subscribable: true, handler: () => name })],
  }),
  {
    handleSignals: false,
    logStream: process.stderr,
    plugins: [healthPlugin({ checks: [] })],
    ...(tracedBus && { eventBus: tracedBus }),
    ...(tasks && {
      tasks: {
        store: tasks,
        ttlMs: 60_000,
        pollIntervalMs: 50,
        ...(process.env.TASK_LEASE_MS && { leaseMs: Number(process.env.TASK_LEASE_MS) }),
      },
    }),
  },
);
await Promise.all([relay?.ready, bus?.ready, tasks?.ready]);
const address = await server.listen(
  httpTransport({
    port: 0,
    sessions: true,
    maxSessions: Number(process.env.MAX_SESSIONS ?? 10_000),
    ...(process.env.IDLE_MS && { sessionIdleTimeoutMs: Number(process.env.IDLE_MS) }),
    drainDelayMs: 0,
    ...(relay && { sessionRelay: relay }),
  }),
);
process.stdout.write(`READY ${address.port}\n`);
process.once('SIGTERM', async () => {
  await server.close();
  await relay?.close();
  await bus?.close();
  await tasks?.close();
  process.exit(0);
});
