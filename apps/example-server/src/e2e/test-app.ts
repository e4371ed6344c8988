// Test helpers (not built): the app as a child process, an upstream the test controls, HTTP probes.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeAll, spawnServer } from '@pier/testing';

export const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The built entry point (the global setup rebuilds it when the sources are newer). */
export const MAIN = join(APP_DIR, 'dist', 'main.js');
/** Bound on waiting for the app to start or stop; generous, since CI has 2 cores shared by parallel files. */
export const START_TIMEOUT_MS = 15_000;
/** A key for tests: long enough for `maskSecret` to show a prefix. */
export const TEST_API_KEY = 'test-key-0123456789abcdef';

/**
 * The environment every child gets: PATH and HOME from the test run and nothing else, so that an
 * API_KEY or LOG_LEVEL set in the developer's shell cannot change what a test sees.
 */
export function baseEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

/** The app running as a child process, with its output collected. */
export interface AppProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The MCP URL the app printed, e.g. `http://127.0.0.1:40123/mcp`. */
  readonly url: string;
  /** `http://127.0.0.1:40123` */
  readonly origin: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();
const scratch = new Set<string>();

/** A fresh temporary directory, removed by {@link cleanUp}. */
export async function tempDir(prefix = 'pier-notes-e2e-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  scratch.add(dir);
  return dir;
}

/** Removes `path` in {@link cleanUp} too. */
export function removeLater(path: string): void {
  scratch.add(path);
}

/** Spawns `node dist/main.js <args>`; does not wait for anything. */
export function spawnApp(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Omit<AppProcess, 'url' | 'origin'> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd: APP_DIR,
    env: baseEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolveExit({ code, signal });
    });
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/**
 * Starts the app on streamable HTTP on a free port (`--port 0`) and resolves once it printed its URL.
 * `args` come after the defaults, so a test can override any of them.
 */
export async function startHttpApp(
  options: { args?: readonly string[]; env?: NodeJS.ProcessEnv; dataDir?: string } = {},
): Promise<AppProcess> {
  const dataDir = options.dataDir ?? (await tempDir());
  const app = await spawnServer(
    process.execPath,
    [
      MAIN,
      '--transport',
      'streamable-http',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--drain-delay-ms',
      '0',
      ...(options.args ?? []),
    ],
    {
      cwd: APP_DIR,
      env: baseEnv({ API_KEY: TEST_API_KEY, ...options.env }),
      // The app's own line: printed whatever LOG_LEVEL says.
      urlPattern: /listening on (http:\/\/\S+\/mcp)/,
      timeoutMs: START_TIMEOUT_MS,
    },
  );
  return { ...app, origin: new URL(app.url).origin };
}

/** Polls `found` on every chunk of the child's output until it returns something, the child exits, or time runs out. */
export function waitFor<T>(
  app: Pick<AppProcess, 'child' | 'stderr' | 'exited'>,
  found: () => T | undefined,
  timeoutMs = START_TIMEOUT_MS,
): Promise<T> {
  return new Promise<T>((resolveFound, reject) => {
    const check = () => {
      const value = found();
      if (value === undefined) return;
      done();
      resolveFound(value);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`timed out after ${timeoutMs} ms; stderr so far:\n${app.stderr()}`));
    }, timeoutMs);
    const onExit = () => {
      // The last chunk may arrive with the exit: look once more before giving up.
      const value = found();
      done();
      if (value !== undefined) resolveFound(value);
      else reject(new Error(`the app exited before that; stderr:\n${app.stderr()}`));
    };
    const done = () => {
      clearTimeout(timer);
      app.child.stdout?.off('data', check);
      app.child.stderr?.off('data', check);
      app.child.off('exit', onExit);
    };
    app.child.stdout?.on('data', check);
    app.child.stderr?.on('data', check);
    app.child.once('exit', onExit);
    check();
  });
}

/** Kills every child still running and removes the temporary directories (call in `afterEach`). */
export async function cleanUp(): Promise<void> {
  // The apps started over HTTP, and any client a test left open.
  await closeAll();
  const waits = [...running].map(
    (child) =>
      new Promise<void>((resolveExit) => {
        child.once('exit', () => resolveExit());
        child.kill('SIGKILL');
      }),
  );
  running.clear();
  await Promise.all(waits);
  await Promise.all(
    [...scratch].map(async (dir) => {
      // A test may have made it read-only.
      await chmod(dir, 0o700).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }),
  );
  scratch.clear();
}

/** GET (or HEAD) a path of the app; resolves with the status and the parsed JSON body. */
export async function probe(
  origin: string,
  path: string,
  method: 'GET' | 'HEAD' = 'GET',
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(new URL(path, origin), { method, signal: AbortSignal.timeout(5_000) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** Polls `probe(origin, path)` until `accept` holds or the deadline passes; resolves with the last answer. */
export async function probeUntil(
  origin: string,
  path: string,
  accept: (answer: { status: number; body: unknown }) => boolean,
  timeoutMs = 10_000,
): Promise<{ status: number; body: unknown }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await probe(origin, path);
    if (accept(answer) || Date.now() > deadline) return answer;
    await new Promise((resolveLater) => setTimeout(resolveLater, 100));
  }
}

/** A local HTTP server standing in for the upstream API, which a test can stop. */
export interface Upstream {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts an upstream that answers every request with `status` (200 by default). */
export async function startUpstream(status = 200): Promise<Upstream> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as AddressInfo;
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= new Promise<void>((resolveClose) => {
      server.close(() => resolveClose());
      // The app's fetch keeps its connection alive; cut it so the next check sees a refusal.
      server.closeAllConnections();
    });
    return stopped;
  };
  upstreams.add(stop);
  return { url: `http://127.0.0.1:${port}/`, stop };
}

const upstreams = new Set<() => Promise<void>>();

/** Stops every upstream still running (call in `afterEach`). */
export async function stopUpstreams(): Promise<void> {
  await Promise.all([...upstreams].map((stop) => stop()));
  upstreams.clear();
}
