// `pnpm fleet [seconds]`: issue 19's "tools/call through HAProxy across 3 replicas vs one replica direct".
// Three replicas of the example app in scale-out mode (REDIS_URL on a real redis-server: notes, events and
// the input-required key in Redis), HAProxy 2.6 running the app's own deploy/haproxy.cfg in front of them,
// and the same config in front of one replica (its three `server` lines all on r1) to tell the proxy's own
// cost from the spread. 2026-07-28 `tools/call list_notes` (a Redis read per call), answered straight by
// r1, through HAProxy to r1 alone, and through HAProxy round-robin to r1–r3: one request at a time for
// latency, then CONCURRENCY clients for throughput. Ways alternate in blocks, so that machine drift hits
// them alike. CPU is every server-side process's own (the replicas, HAProxy, Redis), per request.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMicros, freePort, needBinary, postJson, runStoppingChildren } from './harness/children.js';
import { quantile } from './harness/stats.js';

const APP_DIR = fileURLToPath(new URL('../../apps/example-server/', import.meta.url));
const APP = join(APP_DIR, 'dist', 'main.js');
/** FLEET_HAPROXY_CFG: another HAProxy configuration with the same variables (say, a variant to compare). */
const HAPROXY_CFG = process.env.FLEET_HAPROXY_CFG ?? join(APP_DIR, 'deploy', 'haproxy.cfg');
const SECONDS = Number(process.argv[2] ?? 6);
const BLOCKS = 3;
const SEQUENTIAL = 400;
const CONCURRENCY = 8;
/** Untimed calls per replica a way reaches, before anything is timed: V8 settles a path in a few thousand. */
const WARMUP = 3_000;
const children: ChildProcess[] = [];

/** Starts a child and resolves once its output (stdout or stderr) shows `ready`. */
function start(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: string,
): Promise<ChildProcess> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start:\n${seen}`)), 30_000);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (!seen.includes(ready)) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.stdout?.resume();
      child.stderr?.resume();
      resolve(child);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command} exited with ${String(code)}:\n${seen}`)));
  });
}

/** HAProxy on the deploy config, its three backends at `backends`; resolves once all three are UP. */
async function haproxy(backends: readonly number[]): Promise<{ url: string; pid: number }> {
  const [port, statsPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    PIER_LB_BIND: `127.0.0.1:${port}`,
    PIER_LB_STATS: `127.0.0.1:${statsPort}`,
    PIER_HOST_HEADER: '127.0.0.1',
  };
  backends.forEach((backend, index) => {
    env[`PIER_R${index + 1}`] = `127.0.0.1:${backend}`;
  });
  const child = spawn('haproxy', ['-db', '-f', HAPROXY_CFG], { env, stdio: 'ignore' });
  children.push(child);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const stats = await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)
      .then((response) => response.text())
      .catch(() => '');
    if (stats.split('\n').filter((line) => /^pier_notes,r\d,.*,UP/.test(line)).length === 3) break;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error('haproxy: backends not all UP in 15 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: `http://127.0.0.1:${port}/mcp`, pid: child.pid as number };
}

const call = {
  headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'list_notes' },
  body: (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'list_notes',
      arguments: {},
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bench-fleet', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  }),
};

async function main(): Promise<void> {
  if (process.platform !== 'linux') throw new Error('pnpm fleet reads /proc; run it on Linux');
  needBinary('pnpm fleet', 'redis-server', 'apt-get install -y redis-server');
  needBinary('pnpm fleet', 'haproxy', 'apt-get install -y haproxy');
  const redisPort = await freePort();
  const redis = await start(
    'redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {},
    'Ready to accept connections',
  );
  const replicaPorts: number[] = [];
  const replicas: ChildProcess[] = [];
  for (let index = 1; index <= 3; index++) {
    const port = await freePort();
    replicaPorts.push(port);
    replicas.push(
      await start(
        process.execPath,
        [APP],
        {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          API_KEY: 'bench-only-key',
          TRANSPORT: 'streamable-http',
          HOST: '127.0.0.1',
          PORT: String(port),
          DATA_DIR: mkdtempSync(join(tmpdir(), `pier-fleet-r${index}-`)),
          BASE_URL: 'http://127.0.0.1:9/',
          TIMEOUT: '1000',
          LOG_LEVEL: 'warn',
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        },
        'listening on',
      ),
    );
  }
  const [r1] = replicaPorts as [number, number, number];
  const single = await haproxy([r1, r1, r1]);
  const spread = await haproxy(replicaPorts);
  const serverPids = [...replicas, redis].map((child) => child.pid as number);
  const ways = [
    { name: 'one replica, direct', url: `http://127.0.0.1:${r1}/mcp`, pids: serverPids },
    { name: 'HAProxy → one replica', url: single.url, pids: [...serverPids, single.pid] },
    { name: 'HAProxy → 3 replicas (round-robin)', url: spread.url, pids: [...serverPids, spread.pid] },
  ].map((way) => ({ ...way, latencies: [] as number[], requests: 0, seconds: 0, cpu: 0, failed: 0 }));

  let id = 1;
  const once = async (agent: Agent, url: string) => {
    const answer = await postJson(agent, url, call.headers, call.body(id++));
    if (answer.status !== 200 || !answer.text.includes('"result"')) {
      throw new Error(`unexpected answer ${answer.status}: ${answer.text.slice(0, 200)}`);
    }
  };
  const agents = ways.map(() => new Agent({ keepAlive: true, maxSockets: CONCURRENCY }));
  // Every replica warm before anything is timed (V8 optimising a path while it is timed would count
  // against the way that reached it): WARMUP calls per replica, through each way (round-robin reaches
  // each replica every third call, so it gets three times as many).
  for (const [w, way] of ways.entries()) {
    const calls = way.name.includes('3 replicas') ? 3 * WARMUP : WARMUP;
    for (let i = 0; i < calls; i++) await once(agents[w] as Agent, way.url);
  }
  const cpuOf = (pids: readonly number[]) => pids.reduce((sum, pid) => sum + cpuMicros(pid), 0);
  for (let block = 0; block < BLOCKS; block++) {
    for (const [w, way] of ways.entries()) {
      const agent = agents[w] as Agent;
      for (let i = 0; i < SEQUENTIAL; i++) {
        const started = performance.now();
        await once(agent, way.url);
        way.latencies.push(performance.now() - started);
      }
      // Throughput: CONCURRENCY clients for SECONDS / BLOCKS, each one request at a time.
      const cpuBefore = cpuOf(way.pids);
      const started = performance.now();
      const until = started + (SECONDS * 1_000) / BLOCKS;
      let done = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (performance.now() < until) {
            try {
              await once(agent, way.url);
              done++;
            } catch {
              way.failed++;
            }
          }
        }),
      );
      way.seconds += (performance.now() - started) / 1_000;
      way.requests += done;
      way.cpu += cpuOf(way.pids) - cpuBefore;
    }
  }
  for (const agent of agents) agent.destroy();

  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const [direct] = ways as [(typeof ways)[number]];
  const rps = (way: (typeof ways)[number]) => way.requests / way.seconds;
  const cpu = (way: (typeof ways)[number]) => way.cpu / Math.max(1, way.requests);
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, load average ${load}; 2026-07-28 tools/call list_notes; ${WARMUP} untimed calls per replica and way first; ${BLOCKS} alternating blocks of ${SEQUENTIAL} sequential calls and ${(SECONDS / BLOCKS).toFixed(1)} s of ${CONCURRENCY} concurrent clients per way.`,
    '',
    `| way | latency p50 | p99 | throughput (${CONCURRENCY} clients) | vs direct | server-side CPU per call | vs direct | failed |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...ways.map((way) => {
      const sorted = [...way.latencies].sort((a, b) => a - b);
      return `| ${way.name} | ${quantile(sorted, 0.5).toFixed(3)} ms | ${quantile(sorted, 0.99).toFixed(3)} ms | ${rps(way).toFixed(0)} req/s | ${(rps(way) / rps(direct)).toFixed(2)}× | ${cpu(way).toFixed(0)} µs | ${(cpu(way) / cpu(direct)).toFixed(2)}× | ${way.failed} |`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await runStoppingChildren(children, main);
