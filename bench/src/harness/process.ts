// Starting a server program as a child process on 127.0.0.1, waiting for it, asking it for stats
// over IPC, and stopping it.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { ControlRequest, ServerStats } from '../servers/common.js';
import { sharedIssuer } from './auth-issuer.js';
import type { ServerSpec } from './servers.js';

export interface RunningServer {
  readonly spec: ServerSpec;
  readonly base: string;
  readonly child: ChildProcess;
  /** Milliseconds from spawn to the first 200 on the live path, then on the ready path. */
  readonly liveMs: number;
  readonly readyMs: number;
  /** Headers every MCP request to it carries: a bearer token for a protected server (`spec.auth`). */
  readonly headers: Readonly<Record<string, string>> | undefined;
  /** memoryUsage, cpuUsage and counters; with `gc`, after forced collections. */
  stats(gc?: boolean): Promise<ServerStats>;
  /** The last lines the server wrote to stderr (for error messages). */
  stderr(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Extra node flags, such as --cpu-prof. */
  readonly execArgv?: readonly string[];
}

const START_LIMIT_MS = 30_000;
const POLL_EVERY_MS = 2;

/** Spawns `spec`, polls its live then its ready path until 200 (bounded), and resolves when ready. */
export async function startServer(spec: ServerSpec, options: StartOptions = {}): Promise<RunningServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const issuer = spec.auth === true ? await sharedIssuer() : undefined;
  const started = performance.now();
  const child = fork(spec.program, [], {
    env: {
      ...process.env,
      ...spec.env,
      PORT: String(port),
      ...(issuer !== undefined && { BENCH_AUTH_ISSUER: issuer.url }),
    },
    execArgv: ['--expose-gc', ...(options.execArgv ?? [])],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4_000);
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const stop = async (): Promise<void> => {
    if (exited) return;
    child.kill('SIGKILL');
    if (!exited) await once(child, 'exit');
  };
  try {
    const liveMs = (await pollUntilOk(base + spec.live, started, () => exited)) - started;
    const readyMs = (await pollUntilOk(base + spec.ready, started, () => exited)) - started;
    let nextId = 0;
    const stats = async (gc = false): Promise<ServerStats> => {
      const id = nextId++;
      const request: ControlRequest = { id, type: gc ? 'gc' : 'stats' };
      const answer = new Promise<ServerStats>((resolve) => {
        const onMessage = (message: ServerStats & { id: number }): void => {
          if (message.id !== id) return;
          child.off('message', onMessage);
          resolve(message);
        };
        child.on('message', onMessage);
      });
      child.send(request);
      return answer;
    };
    // An ES256 access token for this server's MCP endpoint (its `resource`), with the `notes:read` scope.
    const headers =
      issuer === undefined
        ? undefined
        : { authorization: `Bearer ${await issuer.token('ES256', `${base}/mcp`)}` };
    return { spec, base, child, liveMs, readyMs, headers, stats, stderr: () => stderr, stop };
  } catch (error) {
    await stop();
    throw new Error(`${spec.id} did not start: ${(error as Error).message}\n${stderr}`);
  }
}

/** Asks a running server to exit cleanly (so that --cpu-prof writes its profile). */
export async function exitCleanly(server: RunningServer): Promise<void> {
  const exited = once(server.child, 'exit');
  server.child.send({ id: -1, type: 'exit' } satisfies ControlRequest);
  await exited;
}

async function pollUntilOk(url: string, started: number, exited: () => boolean): Promise<number> {
  for (;;) {
    if (exited()) throw new Error('the process exited');
    if (performance.now() - started > START_LIMIT_MS)
      throw new Error(`no 200 on ${url} within ${START_LIMIT_MS / 1_000} s`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status === 200) return performance.now();
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
  }
}

/** A port that was free a moment ago (the OS picks it; the server binds it right after). */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
