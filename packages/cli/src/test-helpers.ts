// Test helpers (excluded from the build): the built `pier` as a real child process, and the example app
// (apps/example-server) as the server it talks to.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
/** The example app, built (`pnpm build` builds it before this package's tests run in CI). */
export const EXAMPLE_MAIN = fileURLToPath(
  new URL('../../../apps/example-server/dist/main.js', import.meta.url),
);

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `pier args…` to its end (killed after `timeoutMs`). */
export function runPier(
  args: readonly string[],
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    timeoutMs?: number;
    onStderr?: (text: string) => void;
    onSpawn?: (child: ChildProcess) => void;
  } = {},
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      // A small environment, as a shell gives: not the test runner's (Vite sets BASE_URL, NODE_ENV…),
      // which a server spawned over stdio would inherit.
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    options.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      options.onStderr?.(stderr);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface ExampleApp {
  readonly url: string;
  readonly dataDir: string;
  readonly child: ChildProcess;
  /** Stops it by its PID (SIGKILL) and waits for the exit. */
  close(): Promise<void>;
}

/**
 * The example app over streamable HTTP (`port` 0: a free one), with its own data directory. `env` is
 * added to a small environment (PATH, HOME and an API key).
 */
export async function startExampleApp(
  options: { port?: number; env?: Record<string, string> } = {},
): Promise<ExampleApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pier-cli-app-'));
  const child = spawn(
    process.execPath,
    [
      EXAMPLE_MAIN,
      '--transport',
      'streamable-http',
      '--port',
      String(options.port ?? 0),
      '--data-dir',
      dataDir,
      '--drain-delay-ms',
      '0',
    ],
    {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        API_KEY: 'cli-test-key',
        LOG_LEVEL: 'warn',
        ...options.env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the example app did not start in 20 s:\n${err}`)),
      20_000,
    );
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
      const found = /listening on (http:\/\/\S+\/mcp)/.exec(err)?.[1];
      if (found !== undefined) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the example app exited (${code}): ${err}`));
    });
  });
  return {
    url,
    dataDir,
    child,
    async close() {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        process.kill(child.pid, 'SIGKILL');
      }
      await exited;
    },
  };
}
