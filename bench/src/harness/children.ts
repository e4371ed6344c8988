// Small helpers of the multi-process benches (relay.ts, fleet.ts): a free loopback port, a process's CPU
// time from /proc, a JSON POST on a given agent, a check for a binary, a redis-server, and stopping the
// processes a bench started.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type Agent, request } from 'node:http';
import { createServer } from 'node:net';

/** Throws `<bench> needs <binary>: <install>` unless `binary` is on the PATH. */
export function needBinary(bench: string, binary: string, install: string): void {
  try {
    execFileSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' });
  } catch {
    throw new Error(`${bench} needs ${binary}: ${install}`);
  }
}

/** A free loopback port (closed again at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** CPU time (µs) a process used so far (all its threads), from /proc; 10 ms resolution. */
export function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / 100;
}

/** One JSON POST through `agent`; resolves with the status, the body and a session id if one came. */
export function postJson(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; text: string; session?: string }> {
  const target = new URL(url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(payload),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text,
            ...(typeof res.headers['mcp-session-id'] === 'string' && {
              session: res.headers['mcp-session-id'],
            }),
          }),
        );
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

/**
 * Runs a bench's `main` with `children` (the processes it started, in order) stopped by their own PIDs
 * when it ends, fails or is interrupted; `cleanup` runs first.
 */
export async function runStoppingChildren(
  children: ChildProcess[],
  main: () => Promise<void>,
  cleanup: () => void = () => {},
): Promise<void> {
  const stop = () => {
    for (const child of [...children].reverse()) {
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
    }
  };
  process.once('SIGINT', () => {
    stop();
    process.exit(130);
  });
  try {
    await main();
  } finally {
    cleanup();
    stop();
  }
}

/** A redis-server on a free loopback port, no persistence; stop it with `child.kill()`. */
export async function startRedisServer(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${seen}`)), 10_000);
    child.once('error', (error) =>
      reject(new Error(`redis-server not runnable (${error.message}); apt-get install -y redis-server`)),
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  // `BENCH_REDIS_RT=1`: redis-server runs at real-time priority (SCHED_FIFO 50, needs root), so that the
  // load generator and the servers on the same two cores never keep it waiting for a CPU: the stand-in for
  // a Redis on its own core or host, as in production. Off by default.
  if (process.env.BENCH_REDIS_RT === '1' && child.pid !== undefined) {
    execFileSync('chrt', ['-f', '-p', '50', String(child.pid)], { stdio: 'ignore' });
    console.error('redis-server runs at real-time priority (BENCH_REDIS_RT=1)');
  }
  return { url: `redis://127.0.0.1:${port}`, child };
}
