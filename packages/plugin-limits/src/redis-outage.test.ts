// Limits counted in a real redis-server, which is killed mid-run: a rule that fails open lets calls
// through (uncounted), one that fails closed refuses them (a tool error for a tool limit, 503 with
// Retry-After otherwise); the health check turns the server degraded (never unready) and the events tell
// each decision; when Redis is back, counting resumes and the server is healthy again.
import { healthPlugin } from '@pier/plugin-health';
import { type RedisLimitStore, redisLimitStore } from '@pier/redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
// The redis package's test helper: redis-server from Debian's packages, installed when missing.
import { ensureInstalled, type RedisProcess, startRedis } from '../../redis/src/test-infra.js';
import { LIMIT_EXCEEDED, type LimitEvent, limitsPlugin } from './index.js';
import { closeAll, modern, runs, serve, textOf } from './test-server.js';

let redis: RedisProcess;
let store: RedisLimitStore;
beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
  store = redisLimitStore({ url: redis.url, prefix: 'outage:' });
  await store.ready;
});
afterAll(async () => {
  await closeAll();
  await store?.close();
  await redis?.stop();
});

const isError = (answer: { body: Record<string, unknown> }) =>
  (answer.body.result as { isError?: boolean } | undefined)?.isError === true;

it('Redis killed mid-run: fail-open rules admit, fail-closed rules refuse, health degrades, then recovers', async () => {
  const limits = limitsPlugin({
    store,
    rules: [
      { name: 'notes', key: 'principal', tools: 'add_note', rate: { limit: 100, windowMs: 60_000 } },
      {
        name: 'exports',
        key: 'principal',
        tools: 'export',
        rate: { limit: 100, windowMs: 60_000 },
        onStoreError: 'closed',
      },
      {
        name: 'lists',
        key: 'server',
        methods: 'tools/list',
        rate: { limit: 100, windowMs: 60_000 },
        onStoreError: 'closed',
      },
    ],
  });
  const events: LimitEvent[] = [];
  limits.onEvent((event) => events.push(event));
  const url = await serve([limits, healthPlugin({ cacheTtlMs: 0, checks: [limits.healthCheck()] })]);
  const health = async () => {
    const response = await fetch(new URL('/health', url));
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  expect((await health()).body.status).toBe('healthy');
  const before = await modern(url, 'tools/call', { name: 'add_note', arguments: {} });
  expect(before.headers.get('ratelimit')).toMatch(/^"notes";r=99;t=\d+$/);

  await redis.kill();
  // Fails open: admitted, uncounted, no budget to report.
  const open = await modern(url, 'tools/call', { name: 'add_note', arguments: {} });
  expect(isError(open)).toBe(false);
  expect(open.headers.has('ratelimit')).toBe(false);
  expect(runs.add_note).toBe(2);
  // Fails closed: a tool limit answers a tool error, the handler does not run.
  const closed = await modern(url, 'tools/call', { name: 'export', arguments: {} });
  expect(textOf(closed.body.result as Record<string, unknown>)).toBe(
    'Limit "exports" (100 calls per minute per principal) cannot be checked right now; retry in 1 s.',
  );
  expect(runs.export).toBeUndefined();
  // …and a method limit a 503 with Retry-After.
  const list = await modern(url, 'tools/list');
  expect(list.status).toBe(503);
  expect(list.headers.get('retry-after')).toBe('1');
  expect(list.body.error).toMatchObject({
    code: LIMIT_EXCEEDED,
    data: { limit: 'lists', reason: 'unavailable' },
  });
  // Degraded (a non-critical check), still ready: a Redis outage never takes replicas out.
  const degraded = await health();
  expect(degraded.status).toBe(200);
  expect(degraded.body.status).toBe('degraded');
  expect(JSON.stringify(degraded.body.checks)).toMatch(
    /limit store unreachable: notes fail open; exports, lists fail closed/,
  );
  expect((await fetch(new URL('/health/ready', url))).status).toBe(200);
  expect(events).toEqual(
    expect.arrayContaining([
      { type: 'store', available: false },
      { type: 'store-error', rule: 'notes', mode: 'open' },
      { type: 'store-error', rule: 'exports', mode: 'closed' },
      { type: 'refused', rule: 'exports', kind: 'rate', reason: 'unavailable' },
      { type: 'refused', rule: 'lists', kind: 'rate', reason: 'unavailable' },
    ]),
  );

  await redis.restart();
  let after: Awaited<ReturnType<typeof modern>> | undefined;
  for (let waited = 0; waited < 10_000; waited += 100) {
    after = await modern(url, 'tools/call', { name: 'export', arguments: {} });
    if (!isError(after)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Redis restarted empty: the count starts again.
  expect(after?.headers.get('ratelimit')).toMatch(/^"exports";r=99;t=\d+$/);
  expect(events).toContainEqual({ type: 'store', available: true });
  expect((await health()).body.status).toBe('healthy');
});
