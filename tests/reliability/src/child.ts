// Helpers: Pier servers in child processes (killed after each test), raw HTTP over sockets, an MCP client.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeAll, spawnServer } from '@pier/testing';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURE = join(ROOT, 'fixtures', 'server.mjs');
export const EXAMPLE_MAIN = join(ROOT, 'node_modules', '@pier', 'example-server', 'dist', 'main.js');
/** Bound on waiting for a child to start or to exit. */
export const START_TIMEOUT_MS = 15_000;

/** A child process with its output collected. */
export interface Child {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();
const scratch = new Set<string>();

/** Only PATH and HOME from the test run, so that the developer's shell cannot change what a test sees. */
export function baseEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

export function spawnNode(args: readonly string[], env: NodeJS.ProcessEnv = {}): Child {
  const child = spawn(process.execPath, [...args], {
    cwd: ROOT,
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

/** Resolves with the first match of `pattern` in the child's stdout or stderr, bounded in time. */
export async function waitFor(
  child: Child,
  pattern: RegExp,
  from: 'stdout' | 'stderr' = 'stdout',
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const match = (from === 'stdout' ? child.stdout() : child.stderr()).match(pattern);
    if (match) return match;
    if (child.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(
        `no ${pattern} from the child (exit ${child.child.exitCode})\nstdout: ${child.stdout()}\nstderr: ${child.stderr()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Starts the built example app over streamable HTTP on a free port, with its notes in `dataDir` and the
 * given drain delay (plus `extraArgs`); resolves once it logged its MCP URL.
 */
export async function startExampleHttp(
  dataDir: string,
  drainDelayMs: number,
  env: NodeJS.ProcessEnv,
  extraArgs: readonly string[] = [],
): Promise<Child & { url: URL }> {
  const app = await spawnServer(
    process.execPath,
    [
      EXAMPLE_MAIN,
      '--transport',
      'streamable-http',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--drain-delay-ms',
      String(drainDelayMs),
      ...extraArgs,
    ],
    {
      cwd: ROOT,
      env: baseEnv(env),
      // The app's own line: printed whatever LOG_LEVEL says.
      urlPattern: /listening on (http:\/\/\S+\/mcp)/,
      timeoutMs: START_TIMEOUT_MS,
    },
  );
  return { ...app, url: new URL(app.url) };
}

/** Starts fixtures/server.mjs with the given options; resolves with its MCP URL. */
export async function startFixture(
  options: object,
  nodeFlags: readonly string[] = [],
): Promise<Child & { url: URL }> {
  const child = spawnNode([...nodeFlags, FIXTURE, JSON.stringify(options)]);
  const match = await waitFor(child, /^\{"url":"([^"]+)"\}$/m);
  return { ...child, url: new URL(match[1] as string) };
}

/** Resolves with the exit, or rejects after `ms`. */
export async function exitWithin(
  child: Child,
  ms: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the child did not exit within ${ms} ms\nstderr: ${child.stderr()}`)),
      ms,
    );
  });
  try {
    return await Promise.race([child.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function tempDir(prefix = 'pier-reliability-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  scratch.add(dir);
  return dir;
}

/** Kills every child still running and removes temporary directories: call in afterEach. */
export async function cleanUp(): Promise<void> {
  // The example apps, and any client a test left open.
  await closeAll();
  const waits = [...running].map(
    (child) =>
      new Promise<void>((r) => {
        child.once('exit', () => r());
        child.kill('SIGKILL');
      }),
  );
  await Promise.all(waits);
  await Promise.all([...scratch].map((dir) => rm(dir, { recursive: true, force: true })));
  scratch.clear();
}

/** What a raw HTTP exchange gave: the status line's code, headers, body; or how the connection ended. */
export interface RawResponse {
  readonly status: number | undefined;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** `reset` when the connection was reset or closed before any response byte. */
  readonly ended: 'response' | 'closed' | 'reset';
}

/**
 * Writes `chunks` (strings or buffers, with an optional pause between them) on a fresh socket and reads
 * until the server closes the connection or `timeoutMs`. `Connection: close` is expected in the request,
 * so the server ends the socket after its answer.
 */
export function rawRequest(
  port: number,
  chunks: readonly (string | Buffer)[],
  { pauseMs = 0, timeoutMs = 8_000 }: { pauseMs?: number; timeoutMs?: number } = {},
): Promise<RawResponse> {
  return new Promise((resolveRaw, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const received: Buffer[] = [];
    let errored = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `no end of the response within ${timeoutMs} ms: ${Buffer.concat(received).toString('latin1').slice(0, 300)}`,
        ),
      );
    }, timeoutMs);
    socket.on('data', (chunk) => {
      received.push(chunk);
      // A complete answer with a Content-Length: no need to wait for the server to close the socket.
      const text = Buffer.concat(received).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, split));
      const head = /^HTTP\/1\.1 \d+/.test(text) && !/^HEAD /.test(String(chunks[0]));
      if (
        split !== -1 &&
        length &&
        head &&
        Buffer.byteLength(text, 'latin1') - split - 4 >= Number(length[1])
      ) {
        socket.destroy();
      }
    });
    socket.on('error', () => {
      errored = true;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(received).toString('utf8');
      if (text.length === 0) {
        resolveRaw({ status: undefined, headers: {}, body: '', ended: errored ? 'reset' : 'closed' });
        return;
      }
      resolveRaw(parseResponse(text));
    });
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
  });
}

function parseResponse(text: string): RawResponse {
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  let body = split === -1 ? '' : text.slice(split + 4);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status: Number(statusLine.split(' ')[1]), headers, body, ended: 'response' };
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (let i = 0; i < 10_000; i++) {
    const eol = rest.indexOf('\r\n');
    if (eol === -1) break;
    const size = Number.parseInt(rest.slice(0, eol), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
  return out;
}
