// An open-loop load generator: requests leave on a fixed schedule whether or not earlier answers came
// back, so a slow answer delays nobody else's departure (a closed loop would hide a server's tail by
// sending less while it stalls). `openLoop` runs in any process; this file is also the program of the
// generator's own process (`fixedRateChild`), so that nothing else the bench does (the autocannon
// loader's IPC, the statistics, the Redis child's pipes) shares the event loop that times the answers.
import { type ChildProcess, fork } from 'node:child_process';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { modernEcho } from './requests.js';

export interface OpenLoopResult {
  /** Milliseconds from when each answered request left to its answer's last byte, in departure order. */
  readonly latencies: number[];
  readonly failed: number;
  /**
   * The generator's own event-loop delay while it ran (p99 and max, ms): how late this process itself
   * could notice an answer. The harness's floor, the same for every setup measured.
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
  send: () => Promise<boolean>,
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
        send().then(
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
  return {
    latencies: latencies.filter((value) => !Number.isNaN(value)),
    failed,
    lagP99Ms: lag.percentile(99) / 1e6,
    lagMaxMs: lag.max / 1e6,
  };
}

/** One job of the generator's process: tools/call echo POSTed to `url` at `rate` for `seconds`. */
export interface FixedRateJob {
  readonly url: string;
  readonly rate: number;
  readonly seconds: number;
  /** Warm-up first, not recorded (connections opened, the server's path compiled). */
  readonly warmupSeconds: number;
}

/**
 * A kept-alive agent with more sockets than requests ever in flight at once (a stall of `sockets`
 * milliseconds at 1,000/s would be needed to queue one): no request waits behind another on a socket.
 * Nagle is off on the client (the server's side is node:http's default, off too).
 */
const SOCKETS = 256;

async function fixedRate(job: FixedRateJob): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: SOCKETS, noDelay: true });
  const url = new URL(job.url);
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
  try {
    if (job.warmupSeconds > 0) await openLoop(job.rate, job.warmupSeconds, one);
    return await openLoop(job.rate, job.seconds, one);
  } finally {
    agent.destroy();
  }
}

let child: ChildProcess | undefined;
let nextJob = 0;

/** Runs `job` in the generator's own process (started on first use, reused until {@link stopOpenLoop}). */
export function fixedRateChild(job: FixedRateJob): Promise<OpenLoopResult> {
  child ??= fork(fileURLToPath(import.meta.url), [], {
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const generator = child;
  const id = nextJob++;
  return new Promise((resolve, reject) => {
    const limit = (job.warmupSeconds + job.seconds + 30) * 1_000;
    const timer = setTimeout(() => {
      stopOpenLoop();
      reject(new Error(`the open-loop generator did not answer within ${limit / 1_000} s`));
    }, limit);
    const onMessage = (answer: { id: number; result?: OpenLoopResult; error?: string }): void => {
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
  process.on('message', ({ id, job }: { id: number; job: FixedRateJob }) => {
    fixedRate(job).then(
      (result) => process.send?.({ id, result }),
      (error: unknown) =>
        process.send?.({ id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
