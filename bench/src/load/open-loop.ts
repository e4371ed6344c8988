// An open-loop load generator: requests leave on a fixed schedule whether or not earlier answers came
// back, so a slow answer delays nobody else's departure (a closed loop would hide a server's tail by
// sending less while it stalls). `openLoop` runs in any process; this file is also the program of the
// generator's own process (`interleavedChild`), so that nothing else the bench does (the autocannon
// loader's IPC, the statistics, the Redis child's pipes) shares the event loop that times the answers.
import { type ChildProcess, fork } from 'node:child_process';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { modernEcho } from './requests.js';

export interface OpenLoopResult {
  /**
   * Milliseconds from when each request left to its answer's last byte, by request (NaN where it failed:
   * an error, or `send` said no).
   */
  readonly latencies: number[];
  readonly failed: number;
  /**
   * The generator's own event-loop delay while it ran (p99 and max, ms): how late this process itself
   * could notice an answer. Part of the harness's floor, the same for every setup measured.
   */
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
}

/**
 * `rate` requests a second for `seconds`: request k leaves at `start + k·1000/rate` ms (whenever the timer
 * wakes, every request due by then leaves). Each latency is timed from when its request left (timing from
 * when it was due would add this process's timer lateness, the same for every setup, to every figure).
 * Bounded: `rate · seconds` requests, then it waits for the last answers.
 */
export async function openLoop(
  rate: number,
  seconds: number,
  send: (index: number) => Promise<boolean>,
): Promise<OpenLoopResult> {
  const total = Math.round(seconds * rate);
  const latencies: number[] = new Array(total).fill(Number.NaN);
  let failed = 0;
  const pending: Promise<void>[] = [];
  const spacing = 1_000 / rate;
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  const start = performance.now();
  for (let sent = 0; sent < total; ) {
    const now = performance.now();
    for (; sent < total && start + sent * spacing <= now; sent++) {
      const index = sent;
      const left = performance.now();
      pending.push(
        send(index).then(
          (ok) => {
            if (ok) latencies[index] = performance.now() - left;
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
  lag.disable();
  return { latencies, failed, lagP99Ms: lag.percentile(99) / 1e6, lagMaxMs: lag.max / 1e6 };
}

/**
 * One job of the generator's process: tools/call echo POSTed at `rate` for `seconds` to each of `urls`,
 * interleaved: one open loop that sends to one URL for `sliceSeconds`, then the next (A B C A B C …). Load on the machine that comes and goes (other programs, a build)
 * then falls on every setup alike, which blocks of many seconds one setup after another cannot promise.
 */
export interface InterleavedJob {
  readonly urls: readonly string[];
  readonly rate: number;
  /** Per URL. */
  readonly seconds: number;
  readonly sliceSeconds: number;
  /** Per URL, the same interleaving first, not recorded (connections opened, the servers' paths compiled). */
  readonly warmupSeconds: number;
}

/** Per URL of the job: the latencies of its answered requests, in departure order, and its failures. */
export interface InterleavedResult {
  readonly targets: readonly { readonly latencies: number[]; readonly failed: number }[];
  /** The first few distinct reasons requests failed. */
  readonly errors: readonly string[];
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
}

/**
 * A kept-alive agent per URL with more sockets than requests are ever in flight at once (a stall of
 * `SOCKETS` ms at 1,000/s would be needed to queue one): no request waits behind another on a socket.
 * Nagle is off on the client (node:http servers turn it off on theirs).
 */
const SOCKETS = 256;

/**
 * Which URL request `index` goes to: slices of `perSlice` requests, URL after URL. Always the same order:
 * a flipped one would leave the first URL's connections idle for two cycles, past node:http's 5 s
 * keep-alive timeout with five setups, and time reconnections (and a request that meets a socket the server
 * is closing fails).
 */
export function targetOf(index: number, perSlice: number, count: number): number {
  return Math.floor(index / perSlice) % count;
}

async function interleaved(job: InterleavedJob): Promise<InterleavedResult> {
  const agents = job.urls.map(() => new http.Agent({ keepAlive: true, maxSockets: SOCKETS, noDelay: true }));
  const urls = job.urls.map((url) => new URL(url));
  const perSlice = Math.max(1, Math.round(job.rate * job.sliceSeconds));
  let id = 1;
  const errors = new Set<string>();
  const one = (index: number): Promise<boolean> =>
    new Promise((resolve) => {
      const target = targetOf(index, perSlice, urls.length);
      const { headers, body } = modernEcho(id++);
      const req = http.request(
        urls[target] as URL,
        {
          method: 'POST',
          agent: agents[target] as http.Agent,
          headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => {
            if (res.statusCode !== 200 && errors.size < 3) errors.add(`HTTP ${res.statusCode}`);
            resolve(res.statusCode === 200);
          });
        },
      );
      req.on('error', (error) => {
        if (errors.size < 3) errors.add(error.message);
        resolve(false);
      });
      req.end(body);
    });
  try {
    if (job.warmupSeconds > 0) await openLoop(job.rate, job.warmupSeconds * urls.length, one);
    const run = await openLoop(job.rate, job.seconds * urls.length, one);
    const targets = urls.map(() => ({ latencies: [] as number[], failed: 0 }));
    run.latencies.forEach((latency, index) => {
      const target = targets[targetOf(index, perSlice, urls.length)] as (typeof targets)[number];
      if (Number.isNaN(latency)) target.failed++;
      else target.latencies.push(latency);
    });
    return { targets, errors: [...errors], lagP99Ms: run.lagP99Ms, lagMaxMs: run.lagMaxMs };
  } finally {
    for (const agent of agents) agent.destroy();
  }
}

let child: ChildProcess | undefined;
let nextJob = 0;

/** Runs `job` in the generator's own process (started on first use, reused until {@link stopOpenLoop}). */
export function interleavedChild(job: InterleavedJob): Promise<InterleavedResult> {
  child ??= fork(fileURLToPath(import.meta.url), [], {
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const generator = child;
  const id = nextJob++;
  return new Promise((resolve, reject) => {
    const limit = ((job.warmupSeconds + job.seconds) * job.urls.length + 30) * 1_000;
    const timer = setTimeout(() => {
      stopOpenLoop();
      reject(new Error(`the open-loop generator did not answer within ${limit / 1_000} s`));
    }, limit);
    const onMessage = (answer: { id: number; result?: InterleavedResult; error?: string }): void => {
      if (answer.id !== id) return;
      clearTimeout(timer);
      generator.off('message', onMessage);
      if (answer.result !== undefined) resolve(answer.result);
      else reject(new Error(`open-loop generator: ${answer.error}`));
    };
    generator.on('message', onMessage);
    generator.send({ id, job });
  });
}

/** Ends the generator's process. */
export function stopOpenLoop(): void {
  child?.kill('SIGKILL');
  child = undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send !== undefined) {
  process.on('message', ({ id, job }: { id: number; job: InterleavedJob }) => {
    interleaved(job).then(
      (result) => process.send?.({ id, result }),
      (error: unknown) =>
        process.send?.({ id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
