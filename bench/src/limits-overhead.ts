// `pnpm limits-overhead [seconds] [rounds] [latency]` (needs `redis-server` on PATH): what `@pier/plugin-limits` adds
// to one tools/call (issue 36), the same Pier bench server three ways — no limits; one per-principal rate
// on echo counted in memory; the same counted in Redis (`redisLimitStore`, a local redis-server) — side by
// side, the order flipped every round.
//   1. Server CPU per call under load (autocannon, 50 connections): the in-memory limiter's target is
//      ≤ 5 % of a call.
//   2. Latency at a fixed 1,000 calls/s (an open-loop generator in this process: one request due every
//      millisecond on kept-alive connections, each timed from when it left to its last byte): the Redis
//      limiter's target is ≤ 1 ms added at p99.
//   3. What the Redis limiter adds to a call by itself: one `consume` of `redisLimitStore` (the check every
//      limited call waits for: one EVALSHA round trip) at a fixed 1,000 per second from this process, p50/p99,
//      beside core's InMemoryLimitStore. Less sensitive to what else the machine runs than part 2.
// The rule never refuses (a budget of 10⁹ a second): what is measured is the check, not the refusal.
import http from 'node:http';
import { InMemoryLimitStore, type LimitCheck, type LimitStore } from '@pier/core';
import { redisLimitStore } from '@pier/redis';
import { startRedisServer } from './harness/children.js';
import { stopLoader, throughput } from './harness/measure.js';
import { type RunningServer, startServer } from './harness/process.js';
import { SERVERS } from './harness/servers.js';
import { median, pairedRatios, spread } from './harness/stats.js';
import { modernEcho } from './load/requests.js';

const numbers = process.argv
  .slice(2)
  .filter((arg) => /^\d+$/.test(arg))
  .map(Number);
const [seconds = 5, rounds = 3] = numbers;
// `latency`: parts 2 and 3 only (no autocannon), for a loaded machine where CPU under load says nothing.
const latencyOnly = process.argv.includes('latency');
const RATE = 1_000;

/**
 * Open loop at `RATE` per second for `seconds`: request k leaves at `start + k·1000/RATE` ms (whenever the
 * timer wakes, every request due by then leaves), whether or not earlier answers came back. Each latency is
 * timed from when its request left to its answer's last byte (from when it was due would add this
 * process's own timer lateness, the same for every setup, to every figure).
 */
async function openLoop(
  seconds: number,
  send: () => Promise<boolean>,
): Promise<{ latencies: number[]; failed: number }> {
  const latencies: number[] = [];
  let failed = 0;
  const pending: Promise<void>[] = [];
  const total = seconds * RATE;
  const spacing = 1_000 / RATE;
  const start = performance.now();
  for (let sent = 0; sent < total; ) {
    const now = performance.now();
    for (; sent < total && start + sent * spacing <= now; sent++) {
      const left = performance.now();
      pending.push(
        send().then(
          (ok) => {
            if (ok) latencies.push(performance.now() - left);
            else failed++;
          },
          () => {
            failed++;
          },
        ),
      );
    }
    const next = start + sent * spacing - performance.now();
    if (sent < total) await new Promise((resolve) => setTimeout(resolve, Math.max(0, next)));
  }
  await Promise.all(pending);
  return { latencies, failed };
}

/** Sends tools/call echo to `server` in an {@link openLoop}. */
async function fixedRate(
  server: RunningServer,
  seconds: number,
): Promise<{ latencies: number[]; failed: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const url = new URL('/mcp', server.base);
  let id = 1;
  const one = (): Promise<boolean> =>
    new Promise((resolve) => {
      const { headers, body } = modernEcho(id++);
      const req = http.request(
        url,
        { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => resolve(res.statusCode === 200));
        },
      );
      req.on('error', () => resolve(false));
      req.end(body);
    });
  const measured = await openLoop(seconds, one);
  agent.destroy();
  return measured;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const pier = SERVERS.find((spec) => spec.id === 'pier');
if (pier === undefined) throw new Error('the pier bench server is not declared');

const redis = await startRedisServer();
const running: RunningServer[] = [];
try {
  const setups = [
    { label: 'no limits', server: await startServer({ ...pier, label: 'Pier, no limits' }) },
    {
      label: 'limits, in memory',
      server: await startServer({ ...pier, env: { BENCH_LIMITS: 'memory' } }),
    },
    {
      label: 'limits, Redis',
      server: await startServer({ ...pier, env: { BENCH_LIMITS: 'redis', BENCH_REDIS_URL: redis.url } }),
    },
  ];
  running.push(...setups.map((setup) => setup.server));
  // Correctness first: every setup answers the echo, the limited ones with their RateLimit header.
  for (const { label, server } of setups) {
    const { headers, body } = modernEcho(0);
    const response = await fetch(`${server.base}/mcp`, { method: 'POST', headers, body });
    await response.arrayBuffer();
    const limited = response.headers.has('ratelimit');
    if (response.status !== 200 || limited !== (label !== 'no limits')) {
      throw new Error(
        `${label}: HTTP ${response.status}, RateLimit header ${limited ? 'present' : 'absent'}`,
      );
    }
  }
  const cpu = new Map<string, number[]>();
  const p50 = new Map<string, number[]>();
  const p99 = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, key: string, value: number) =>
    map.set(key, [...(map.get(key) ?? []), value]);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? setups : [...setups].reverse();
    for (const { label, server } of latencyOnly ? [] : order) {
      const sample = await throughput(
        server,
        { era: 'modern' },
        { seconds, warmupSeconds: 1, connections: 50 },
      );
      add(cpu, label, sample.cpuUsPerRequest);
      console.error(
        `round ${round + 1}: ${label}: ${Math.round(sample.rps)} req/s, ${sample.cpuUsPerRequest.toFixed(1)} µs CPU/call, ${sample.errors + sample.non2xx} errors`,
      );
    }
    for (const { label, server } of order) {
      await fixedRate(server, 1); // warm the connections and the path
      const { latencies, failed } = await fixedRate(server, seconds);
      add(p50, label, percentile(latencies, 50));
      add(p99, label, percentile(latencies, 99));
      console.error(
        `round ${round + 1}: ${label} at ${RATE}/s: p50 ${percentile(latencies, 50).toFixed(3)} ms, p99 ${percentile(latencies, 99).toFixed(3)} ms, ${failed} failed`,
      );
    }
  }
  const base = 'no limits';
  console.log(
    '\n| setup | server CPU µs/call, median (min–max) | added CPU vs no limits | p50 ms at 1,000/s | p99 ms at 1,000/s | p99 added vs no limits |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const { label } of setups) {
    const values = cpu.get(label) ?? [];
    const { min, max } = spread(values);
    const added =
      label === base
        ? '—'
        : `${((median(pairedRatios(values, cpu.get(base) ?? [])) - 1) * 100).toFixed(1)} %`;
    const tail = p99.get(label) ?? [];
    const tailAdded =
      label === base
        ? '—'
        : `${median(tail.map((value, index) => value - ((p99.get(base) ?? [])[index] ?? Number.NaN))).toFixed(3)} ms`;
    console.log(
      `| ${label} | ${median(values).toFixed(1)} (${min.toFixed(1)}–${max.toFixed(1)}) | ${added} | ${median(p50.get(label) ?? []).toFixed(3)} | ${median(tail).toFixed(3)} | ${tailAdded} |`,
    );
  }
  // 3. The store's check alone, open loop at RATE per second.
  const shared = redisLimitStore({ url: redis.url, prefix: 'bench:store:' });
  const stores: [string, LimitStore][] = [
    ['InMemoryLimitStore', new InMemoryLimitStore()],
    ['redisLimitStore', shared],
  ];
  await shared.ready;
  console.log('\n| store | consume p50 ms at 1,000/s | consume p99 ms at 1,000/s | max ms | failed |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const [label, store] of stores) {
    const check = (caller: number): LimitCheck[] => [
      { kind: 'rate', key: `echo:caller-${caller % 100}`, limit: 1_000_000_000, windowMs: 1_000, cost: 1 },
    ];
    let caller = 0;
    const consume = async (): Promise<boolean> => {
      await store.consume(check(caller++));
      return true;
    };
    await openLoop(1, consume); // warm the connection and the script cache
    const { latencies: timings, failed } = await openLoop(seconds, consume);
    console.log(
      `| ${label} | ${percentile(timings, 50).toFixed(3)} | ${percentile(timings, 99).toFixed(3)} | ${Math.max(...timings).toFixed(3)} | ${failed} |`,
    );
  }
  await shared.close();
} finally {
  stopLoader();
  await Promise.all(running.map((server) => server.stop()));
  redis.child.kill('SIGTERM');
}
