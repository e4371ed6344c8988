// `pnpm runtimes [seconds] [rounds]` (issue 32): Pier on every way it is served, side by side in one run.
// On Node: the fetch handler (on @hono/node-server) and the Express and Fastify adapters against the node
// listener; on Bun and on Deno: Pier's fetch handler against the hand-written server (src/servers/hand.ts,
// node:http, which both runtimes implement) on the same runtime; and on each runtime the SDK v2's own
// fetch handler (`createMcpHandler`), `toNodeHandler` on Node. tools/call echo in both eras, 50 connections,
// the load generator (autocannon) in its own Node process; server CPU per request read from /proc, so that
// every runtime is measured alike. Bun and Deno come from npm into bench/peers (`npm ci` there).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { int, ratioText } from './format.js';
import { stopLoader, type ThroughputSample, throughput } from './harness/measure.js';
import type { RunningServer } from './harness/process.js';
import type { Era } from './load/requests.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVERS = join(HERE, 'servers');
const PEERS = join(HERE, '..', 'peers', 'node_modules');

type Runtime = 'node' | 'bun' | 'deno';

interface Entry {
  readonly id: string;
  readonly runtime: Runtime;
  readonly label: string;
  readonly program: string;
  readonly env?: Readonly<Record<string, string>>;
}

const ENTRIES: readonly Entry[] = [
  { id: 'listener', runtime: 'node', label: 'Pier, node listener', program: 'pier.js' },
  {
    id: 'fetch',
    runtime: 'node',
    label: 'Pier, fetch handler (@hono/node-server)',
    program: 'pier-fetch.js',
  },
  {
    id: 'express',
    runtime: 'node',
    label: 'Pier in Express 5',
    program: 'pier-mount.js',
    env: { BENCH_MOUNT: 'express' },
  },
  {
    id: 'express-front',
    runtime: 'node',
    label: 'Pier in front of an Express 5 app (one node:http server, `next` to the app)',
    program: 'pier-mount.js',
    env: { BENCH_MOUNT: 'express-front' },
  },
  {
    id: 'fastify',
    runtime: 'node',
    label: 'Pier in Fastify 5',
    program: 'pier-mount.js',
    env: { BENCH_MOUNT: 'fastify' },
  },
  { id: 'hand', runtime: 'node', label: 'hand-written (node:http)', program: 'hand.js' },
  // The floors: a canned answer (no MCP work) on node:http, from an Express 5 app, and as a fetch handler.
  { id: 'raw', runtime: 'node', label: 'canned answer, node:http', program: 'raw.js' },
  { id: 'express-canned', runtime: 'node', label: 'canned answer, Express 5', program: 'express-canned.js' },
  { id: 'fetch-canned', runtime: 'node', label: 'canned answer, fetch handler', program: 'fetch-canned.js' },
  { id: 'sdk-v2', runtime: 'node', label: 'SDK v2 createMcpHandler + toNodeHandler', program: 'sdk-v2.js' },
  { id: 'fetch', runtime: 'bun', label: 'Pier, fetch handler (Bun.serve)', program: 'pier-fetch.js' },
  { id: 'hand', runtime: 'bun', label: 'hand-written (node:http on Bun)', program: 'hand.js' },
  { id: 'sdk-v2', runtime: 'bun', label: 'SDK v2 createMcpHandler (Bun.serve)', program: 'sdk-v2-fetch.js' },
  { id: 'fetch', runtime: 'deno', label: 'Pier, fetch handler (Deno.serve)', program: 'pier-fetch.js' },
  { id: 'hand', runtime: 'deno', label: 'hand-written (node:http on Deno)', program: 'hand.js' },
  {
    id: 'sdk-v2',
    runtime: 'deno',
    label: 'SDK v2 createMcpHandler (Deno.serve)',
    program: 'sdk-v2-fetch.js',
  },
];

const ERAS: readonly Era[] = ['modern', 'legacy'];

function command(runtime: Runtime, program: string): [string, string[]] {
  const path = join(SERVERS, program);
  if (runtime === 'node') return [process.execPath, [path]];
  const binary =
    runtime === 'bun'
      ? join(PEERS, '@oven/bun-linux-x64/bin/bun')
      : join(PEERS, '@deno/linux-x64-glibc/deno');
  if (!existsSync(binary)) {
    throw new Error(`${binary} is missing: install the bench peers (cd bench/peers && npm ci)`);
  }
  return runtime === 'bun' ? [binary, [path]] : [binary, ['run', '-A', '--quiet', path]];
}

/** User + system CPU of a process, in µs, from /proc (clock ticks of 10 ms). */
function cpuOf(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) * 10_000, system: Number(fields[12]) * 10_000 };
}

async function start(entry: Entry): Promise<{ server: RunningServer; child: ChildProcess }> {
  const port = await freePort();
  const [binary, args] = command(entry.runtime, entry.program);
  const child = spawn(binary, args, {
    env: { ...process.env, ...entry.env, PORT: String(port), NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
    cwd: join(HERE, '..'),
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry.runtime} ${entry.id} exited`);
    try {
      if ((await fetch(`${base}/health/live`)).ok) break;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${entry.runtime} ${entry.id} did not start within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pid = child.pid as number;
  const server = {
    spec: { sessionful: false },
    base,
    stats: async () => ({ cpu: cpuOf(pid) }),
  } as unknown as RunningServer;
  return { server, child };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const seconds = Number(process.argv[2] ?? 5);
const rounds = Number(process.argv[3] ?? 1);
const samples = new Map<string, ThroughputSample[]>();
const key = (runtime: Runtime, id: string, era: Era) => `${runtime}/${id}/${era}`;

for (let round = 0; round < rounds; round++) {
  for (const entry of ENTRIES) {
    const { server, child } = await start(entry);
    try {
      for (const era of ERAS) {
        const sample = await throughput(server, { era }, { seconds, warmupSeconds: 1, connections: 50 });
        if (sample.non2xx > 0 || sample.errors > 0) {
          throw new Error(
            `${entry.runtime} ${entry.id} ${era}: ${sample.non2xx} non-2xx, ${sample.errors} errors`,
          );
        }
        const list = samples.get(key(entry.runtime, entry.id, era)) ?? [];
        list.push(sample);
        samples.set(key(entry.runtime, entry.id, era), list);
        console.error(
          `[runtimes] ${entry.runtime} ${entry.id} ${era}: ${int(sample.rps)} req/s, ${int(sample.cpuUsPerRequest)} µs CPU/call`,
        );
      }
    } finally {
      child.kill('SIGKILL');
    }
  }
}
stopLoader();

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const rps = (runtime: Runtime, id: string, era: Era) =>
  samples.get(key(runtime, id, era))?.map((s) => s.rps) ?? [];
const cpu = (runtime: Runtime, id: string, era: Era) =>
  median(samples.get(key(runtime, id, era))?.map((s) => s.cpuUsPerRequest) ?? []);
const ratios = (a: readonly number[], b: readonly number[]) =>
  a.map((value, i) => value / (b[i] ?? Number.NaN));

const lines: string[] = [];
lines.push('| runtime | server | era | req/s | server CPU µs/call |');
lines.push('| --- | --- | --- | --- | --- |');
for (const entry of ENTRIES) {
  for (const era of ERAS) {
    lines.push(
      `| ${entry.runtime} | ${entry.label} | ${era} | ${int(median(rps(entry.runtime, entry.id, era)))} | ${int(cpu(entry.runtime, entry.id, era))} |`,
    );
  }
}
lines.push('');
lines.push('| target | era | figure | verdict |');
lines.push('| --- | --- | --- | --- |');
const target = (name: string, era: Era, a: readonly number[], b: readonly number[], floor: number) => {
  const r = ratios(a, b);
  lines.push(`| ${name} | ${era} | ${ratioText(r)} | ${median(r) >= floor ? 'met' : '**missed**'} |`);
};
function reported(name: string, era: Era, a: readonly number[], b: readonly number[]): void {
  lines.push(`| (reported) ${name} | ${era} | ${ratioText(ratios(a, b))} | — |`);
}
for (const era of ERAS) {
  for (const runtime of ['node', 'bun', 'deno'] as const) {
    target(
      `Pier fetch handler ≥ 5× SDK v2 handler (${runtime})`,
      era,
      rps(runtime, 'fetch', era),
      rps(runtime, 'sdk-v2', era),
      5,
    );
  }
  target(
    'Express adapter ≥ 0.8× node listener',
    era,
    rps('node', 'express', era),
    rps('node', 'listener', era),
    0.8,
  );
  target(
    'Fastify adapter ≥ 0.8× node listener',
    era,
    rps('node', 'fastify', era),
    rps('node', 'listener', era),
    0.8,
  );
  reported(
    'Pier in front of an Express app vs node listener',
    era,
    rps('node', 'express-front', era),
    rps('node', 'listener', era),
  );
  reported(
    'Express 5 floor: canned answer from Express vs node:http',
    era,
    rps('node', 'express-canned', era),
    rps('node', 'raw', era),
  );
  reported(
    'fetch handler on Node vs node listener',
    era,
    rps('node', 'fetch', era),
    rps('node', 'listener', era),
  );
  for (const runtime of ['bun', 'deno'] as const) {
    reported(
      `Pier fetch handler vs hand-written (${runtime})`,
      era,
      rps(runtime, 'fetch', era),
      rps(runtime, 'hand', era),
    );
  }
}
console.log(lines.join('\n'));
