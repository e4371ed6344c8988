// `pnpm limits-overhead [seconds] [rounds]` (needs `redis-server` on PATH): what `@pier/plugin-limits` adds
// to one tools/call (issue 36), the same Pier bench server three ways — no limits; one per-principal rate
// on echo counted in memory; the same counted in Redis (`redisLimitStore`, a local redis-server) — side by
// side, the order flipped every round.
//   1. Server CPU per call under load (autocannon, 50 connections): the in-memory limiter's target is
//      ≤ 5 % of a call.
//   2. Latency at a fixed 1,000 calls/s (an open-loop generator in this process: 10 requests every 10 ms on
//      kept-alive connections, each timed from send to its last byte): the Redis limiter's target is
//      ≤ 1 ms added at p99.
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
const RATE = 1_000;

/** Sends tools/call echo at `RATE` per second for `seconds`; each latency in ms, and the failures. */
async function fixedRate(
  server: RunningServer,
  seconds: number,
): Promise<{ latencies: number[]; failed: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const url = new URL('/mcp', server.base);
  const latencies: number[] = [];
  let failed = 0;
  let id = 1;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const { headers, body } = modernEcho(id++);
      const started = performance.now();
      const req = http.request(
        url,
        { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => {
            if (res.statusCode === 200) latencies.push(performance.now() - started);
            else failed++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        failed++;
        resolve();
      });
      req.end(body);
    });
  const pending: Promise<void>[] = [];
  const batches = (seconds * RATE) / 10;
  const start = performance.now();
  for (let batch = 0; batch < batches; batch++) {
    // Open loop: each batch leaves at its own time whether or not earlier answers came back.
    const due = start + batch * 10;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    for (let i = 0; i < 10; i++) pending.push(one());
  }
  await Promise.all(pending);
  agent.destroy();
  return { latencies, failed };
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
    for (const { label, server } of order) {
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
    const timings: number[] = [];
    let failed = 0;
    const check = (caller: number): LimitCheck[] => [
      { kind: 'rate', key: `echo:caller-${caller % 100}`, limit: 1_000_000_000, windowMs: 1_000, cost: 1 },
    ];
    for (const measured of [false, true]) {
      const pending: Promise<void>[] = [];
      const start = performance.now();
      for (let batch = 0; batch < (seconds * RATE) / 10; batch++) {
        const wait = start + batch * 10 - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        for (let i = 0; i < 10; i++) {
          const began = performance.now();
          pending.push(
            Promise.resolve(store.consume(check(batch * 10 + i))).then(
              () => {
                if (measured) timings.push(performance.now() - began);
              },
              () => {
                failed++;
              },
            ),
          );
        }
      }
      await Promise.all(pending);
    }
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
