// Every replica of the fleet runs this: the same rules, counted in one Redis, so three replicas behind a
// load balancer admit 10 add_note calls a minute per principal, not 30.
import { createServer, defineServer } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { limitsPlugin } from '@pier/plugin-limits';
import { otelPlugin } from '@pier/plugin-otel';
import { redisLimitStore } from '@pier/redis';

const store = redisLimitStore({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
const limits = limitsPlugin({
  store,
  rules: [
    // Each user: 10 add_note a minute; while Redis is down, calls go through uncounted (fail open).
    { name: 'add-note', key: 'principal', tools: 'add_note', rate: { limit: 10, windowMs: 60_000 } },
    // Each user: 1,000 units of writing tools a day (from 00:00 UTC); export_notes costs 5.
    { name: 'writes', key: 'principal', annotations: { readOnlyHint: false }, quota: { limit: 1_000 } },
    // At most 2 exports at once on the whole fleet; refused while Redis is down (fail closed).
    {
      name: 'exports',
      key: 'server',
      tools: 'export_notes',
      concurrency: { limit: 2 },
      onStoreError: 'closed',
    },
  ],
  costs: { export_notes: 5 },
});

const server = createServer(defineServer({ name: 'notes', version: '1.0.0' }), {
  plugins: [
    limits,
    healthPlugin({ checks: [limits.healthCheck()] }), // non-critical: Redis down makes the server degraded
    otelPlugin({ limits, prometheus: true }), // pier_limit_refusals_total{pier_limit_rule, pier_limit_reason}…
  ],
});
server.onClose(() => store.close());
await store.ready;
await server.listen({ transport: 'streamable-http', port: 3000 });
