// The fleet through a Redis outage: two replicas behind a real HAProxy (round-robin, health-checked on
// /health/ready) share one real redis-server. Shared, a limit of N admits N for the fleet; with Redis killed,
// on both replicas the fail-open rule admits (uncounted) and the fail-closed rule refuses, /health says
// `degraded` naming both modes and HAProxy keeps routing to both; with Redis back, the limit is shared again.
// Negative control: the same scenario with each replica's own in-memory store admits N per replica and
// never notices the outage.
import { healthPlugin } from '@pier/plugin-health';
import { type RedisLimitStore, redisLimitStore } from '@pier/redis';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
// The redis package's test helpers: redis-server and haproxy from Debian's packages, installed when missing.
import { ensureInstalled, type RedisProcess, startHaproxy, startRedis } from '../../redis/src/test-infra.js';
import { limitsPlugin } from './index.js';
import { closeAll, modern, type RawAnswer, serve } from './test-server.js';

const N = 4;
let redis: RedisProcess;
const stores: RedisLimitStore[] = [];

beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
});
afterEach(async () => {
  await closeAll();
  await Promise.all(stores.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await redis?.stop();
});

interface Call {
  readonly admitted: boolean;
  readonly replica: string | null;
  readonly text: string;
  readonly counted: boolean;
}

const callTool = async (url: string, name: string): Promise<Call> => {
  const answer: RawAnswer = await modern(url, 'tools/call', { name, arguments: {} });
  expect(answer.status).toBe(200);
  const result = answer.body.result as { isError?: boolean; content?: { text?: string }[] };
  return {
    admitted: result.isError !== true,
    replica: answer.headers.get('x-pier-replica'),
    text: result.content?.[0]?.text ?? '',
    counted: answer.headers.has('ratelimit'),
  };
};

const sequence = async (url: string, name: string, count: number): Promise<Call[]> => {
  const calls: Call[] = [];
  for (let call = 0; call < count; call++) calls.push(await callTool(url, name));
  return calls;
};

const summary = (calls: readonly Call[]) => ({
  admitted: calls.filter((call) => call.admitted).length,
  replicas: [...new Set(calls.map((call) => call.replica))].sort(),
});

/** Runs the scenario on two replicas, each counting in Redis (`shared`) or in its own memory; what it saw. */
async function scenario(shared: boolean) {
  const backends: Record<string, number> = {};
  const origins: string[] = [];
  for (const name of ['r1', 'r2']) {
    const store = shared ? redisLimitStore({ url: redis.url, prefix: 'fleet-outage:' }) : undefined;
    if (store !== undefined) {
      stores.push(store);
      await store.ready;
    }
    const limits = limitsPlugin({
      ...(store !== undefined && { store }),
      rules: [
        { name: 'notes', key: 'principal', tools: 'add_note', rate: { limit: N, windowMs: 60_000 } },
        {
          name: 'exports',
          key: 'principal',
          tools: 'export',
          rate: { limit: 100, windowMs: 60_000 },
          onStoreError: 'closed',
        },
      ],
    });
    const url = await serve([limits, healthPlugin({ cacheTtlMs: 0, checks: [limits.healthCheck()] })]);
    backends[name] = Number(new URL(url).port);
    origins.push(new URL(url).origin);
  }
  const lb = await startHaproxy(backends);
  const health = () =>
    Promise.all(
      origins.map(async (origin) => {
        const response = await fetch(`${origin}/health`);
        const body = (await response.json()) as { status: string; checks?: unknown };
        return { http: response.status, status: body.status, checks: JSON.stringify(body.checks) };
      }),
    );
  try {
    // Round-robin, one call after another: each replica gets 3N/2 > N of the 3N calls.
    const before = summary(await sequence(lb.url, 'add_note', 3 * N));

    await redis.kill();
    const openCalls = await sequence(lb.url, 'add_note', 4);
    const closedCalls = await sequence(lb.url, 'export', 4);
    const down = await health();

    await redis.restart();
    // Each replica reconnects on its own: poll each directly until its fail-closed rule admits again.
    const back: boolean[] = [];
    for (const origin of origins) {
      let admitted = false;
      for (let waited = 0; !admitted && waited < 10_000; waited += 100) {
        admitted = (await callTool(`${origin}/mcp`, 'export')).admitted;
        if (!admitted) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      back.push(admitted);
    }
    // Redis restarted empty: the fleet's budget starts again, and is one budget again.
    const after = summary(await sequence(lb.url, 'add_note', 3 * N));
    const up = await health();
    return {
      before,
      outage: {
        failOpen: { ...summary(openCalls), counted: openCalls.some((call) => call.counted) },
        failClosed: {
          ...summary(closedCalls),
          texts: [...new Set(closedCalls.map((call) => call.text))],
        },
        health: down.map(({ http, status }) => ({ http, status })),
        named: down.every(({ checks }) =>
          /limit store unreachable: notes fail open; exports fail closed/.test(checks),
        ),
      },
      back,
      after,
      health: up.map(({ http, status }) => ({ http, status })),
    };
  } finally {
    await lb.stop();
  }
}

const BOTH = ['r1', 'r2'];

it(`two replicas through a Redis outage: shared limit of ${N}, fail open and closed on both, /health degraded, shared again`, async () => {
  expect(await scenario(true)).toEqual({
    before: { admitted: N, replicas: BOTH },
    outage: {
      // Fail open: admitted on both replicas although the budget is spent, and uncounted (no RateLimit).
      failOpen: { admitted: 4, replicas: BOTH, counted: false },
      // Fail closed: refused on both replicas, a tool error saying the limit cannot be checked.
      failClosed: {
        admitted: 0,
        replicas: BOTH,
        texts: [
          'Limit "exports" (100 calls per minute per principal) cannot be checked right now; retry in 1 s.',
        ],
      },
      // Degraded, not unready (HAProxy kept both in: the calls above reached both).
      health: [
        { http: 200, status: 'degraded' },
        { http: 200, status: 'degraded' },
      ],
      named: true,
    },
    back: [true, true],
    after: { admitted: N, replicas: BOTH },
    health: [
      { http: 200, status: 'healthy' },
      { http: 200, status: 'healthy' },
    ],
  });
});

it(`negative control, each replica counting in its own memory: ${2 * N} admitted, the outage unseen`, async () => {
  const seen = await scenario(false);
  expect(seen.before).toEqual({ admitted: 2 * N, replicas: BOTH });
  // The per-replica budgets stay spent through the "outage": nothing fails open, health never degrades.
  expect(seen.outage.failOpen.admitted).toBe(0);
  expect(seen.outage.health).toEqual([
    { http: 200, status: 'healthy' },
    { http: 200, status: 'healthy' },
  ]);
});
