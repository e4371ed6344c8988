// spawnServer(): a server as its own process (the built app, as a deployment runs it), over HTTP on
// the port it chose, with its output collected and a bounded wait for the URL it prints.

import { type ChildProcess, spawn } from 'node:child_process';
import { describeValue } from '@pier/core';
import { TestingError } from './errors.js';
import { track, untrack } from './registry.js';

/** Options of {@link spawnServer}. */
export interface SpawnServerOptions {
  /** The child's environment. Default: this process's. */
  readonly env?: NodeJS.ProcessEnv;
  /** The child's working directory. Default: this process's. */
  readonly cwd?: string;
  /**
   * Where the URL is read: the first capture group of the first match in the child's stderr or
   * stdout. Default: core's `listening transport=streamable-http url=…` log line.
   */
  readonly urlPattern?: RegExp;
  /** How long to wait for the URL. Default 15 000 ms. */
  readonly timeoutMs?: number;
}

/** A server process that printed its URL. */
export interface ServerProcess {
  readonly child: ChildProcess;
  /** The URL it printed, such as `http://127.0.0.1:40123/mcp`. */
  readonly url: string;
  stdout(): string;
  stderr(): string;
  /** Settles when the process exited (never rejects). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (default `SIGKILL`) unless it already exited, and resolves with its exit. */
  close(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const CORE_LISTENING = /listening transport=streamable-http url=(\S+)/;

/**
 * Starts `command args` and resolves once it printed its URL (core logs it when `listen` resolved;
 * pass `--port 0` or the like so that parallel tests never share a port). `closeAll()` kills it.
 *
 * @example
 * ```ts
 * const app = await spawnServer(process.execPath, ['dist/main.js', '--transport', 'streamable-http', '--port', '0']);
 * const { client } = await connect(app.url, { era: '2025-11-25' });
 * ```
 */
export async function spawnServer(
  command: string,
  args: readonly string[] = [],
  options: SpawnServerOptions = {},
): Promise<ServerProcess> {
  const { env = process.env, cwd, urlPattern = CORE_LISTENING, timeoutMs = 15_000 } = options;
  if (typeof command !== 'string' || command === '') {
    throw new TestingError(
      'OPTIONS_INVALID',
      `spawnServer: command must be a non-empty string (got ${describeValue(command)})`,
    );
  }
  if (!(urlPattern instanceof RegExp)) {
    throw new TestingError(
      'OPTIONS_INVALID',
      `spawnServer: urlPattern must be a RegExp (got ${describeValue(urlPattern)})`,
    );
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new TestingError(
      'OPTIONS_INVALID',
      `spawnServer: timeoutMs must be a whole number > 0 (got ${describeValue(timeoutMs)})`,
    );
  }
  const child = spawn(command, [...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', (error) => {
      err += `\n${error.message}`;
      resolve({ code: null, signal: null });
    });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const running: ServerProcess = {
    child,
    url: '',
    stdout: () => out,
    stderr: () => err,
    exited,
    close: async (signal = 'SIGKILL') => {
      untrack(running);
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  track(running);
  try {
    const url = await waitForUrl(child, urlPattern, timeoutMs, () => `${err}${out}`, exited);
    return Object.assign(running, { url });
  } catch (error) {
    await running.close();
    throw error;
  }
}

function waitForUrl(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs: number,
  output: () => string,
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const look = () => {
      const url = pattern.exec(output())?.[1];
      if (url === undefined) return false;
      done();
      resolve(url);
      return true;
    };
    const timer = setTimeout(() => {
      done();
      reject(
        new TestingError(
          'TIMEOUT',
          `spawnServer: no URL matching ${pattern} within ${timeoutMs} ms; output so far:\n${output()}`,
        ),
      );
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      child.stdout?.off('data', look);
      child.stderr?.off('data', look);
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    void exited.then(({ code, signal }) => {
      // The last chunk may come with the exit: look once more before giving up.
      if (look()) return;
      done();
      reject(
        new TestingError(
          'PROCESS_FAILED',
          `spawnServer: the process exited (${code ?? signal}) before printing its URL; output:\n${output()}`,
        ),
      );
    });
    look();
  });
}
