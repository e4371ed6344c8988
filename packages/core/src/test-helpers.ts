// Test helpers (not built): the eras tests run in, child processes, scratch projects. Clients connect
// through @pier/testing (mapped to its source by vitest.config.ts and tsconfig.json).
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientOptions } from '@modelcontextprotocol/client';
import type { Era as TestingEra } from '@pier/testing';
import { expect } from 'vitest';
import { PierError } from './errors.js';

export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURES = join(PACKAGE_DIR, 'src', 'fixtures');

/** The negotiation modes tests run against: modern (2026-07-28), 2025 by default, 2025 pinned older. */
export const ERAS: Record<'modern' | 'legacy' | 'legacy 2025-06-18', ClientOptions> = {
  modern: { versionNegotiation: { mode: 'auto' } },
  legacy: {},
  'legacy 2025-06-18': { supportedProtocolVersions: ['2025-06-18'] },
};
export type Era = keyof typeof ERAS;

/**
 * The revision `@pier/testing`'s `connect` pins for each era above (modern: `server/discover`; the
 * legacy ones: `initialize` offering exactly that revision).
 */
export const REVISION = {
  modern: '2026-07-28',
  legacy: '2025-11-25',
  'legacy 2025-06-18': '2025-06-18',
} as const satisfies Record<Era, TestingEra>;

/** A child process with its output collected, killed by `kill()` if still running. */
export interface Child {
  readonly process: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves once stderr contains `text`; rejects if the child exits first. */
  waitForStderr(text: string): Promise<void>;
  /** Resolves with the exit code (or the signal) once the child exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
}

const children = new Set<Child>();

/** Runs `node <args>` and collects its output. */
export function runNode(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Child {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? PACKAGE_DIR,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: { text: string; resolve: () => void; reject: (error: Error) => void }[] = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      if (err.includes(waiter.text)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    check();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
    // 'close' comes after the exit and after the last output arrived.
    child.on('close', (code, signal) => {
      for (const waiter of waiters.splice(0)) {
        waiter.reject(new Error(`child exited (${code ?? signal}) before "${waiter.text}"; stderr:\n${err}`));
      }
      resolveExit({ code, signal });
    });
  });
  const handle: Child = {
    process: child,
    stdout: () => out,
    stderr: () => err,
    waitForStderr: (text) =>
      new Promise((resolveWait, reject) => {
        waiters.push({ text, resolve: resolveWait, reject });
        check();
      }),
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  children.add(handle);
  void exited.then(() => children.delete(handle));
  return handle;
}

/** Kills every child still running (call in `afterEach`). */
export function killChildren(): void {
  for (const child of children) child.kill();
  children.clear();
}

/**
 * A scratch project outside the workspace whose `node_modules` holds only core and what it needs
 * (`zod`, the SDK; the SDK's client for drivers), never `@pier/transport-http`. Core is a symlink to
 * this package (as workspaces and linked installs have it) or, with `copyCore`, a copy of its
 * `package.json` and `dist` (as npm's flat layout has it, where core resolves its own peers).
 */
export function scratchProject(
  extra: Record<string, string> = {},
  options: { copyCore?: boolean } = {},
): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'pier-core-'));
  const modules = join(PACKAGE_DIR, 'node_modules');
  const links: Record<string, string> = {
    zod: join(modules, 'zod'),
    '@modelcontextprotocol/server': join(modules, '@modelcontextprotocol', 'server'),
    '@modelcontextprotocol/client': join(modules, '@modelcontextprotocol', 'client'),
    ...(options.copyCore ? {} : { '@pier/core': PACKAGE_DIR }),
    ...extra,
  };
  for (const [name, target] of Object.entries(links)) {
    const link = join(dir, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link, 'dir');
  }
  if (options.copyCore) {
    const core = join(dir, 'node_modules', '@pier', 'core');
    mkdirSync(core, { recursive: true });
    cpSync(join(PACKAGE_DIR, 'package.json'), join(core, 'package.json'));
    cpSync(join(PACKAGE_DIR, 'dist'), join(core, 'dist'), { recursive: true });
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A promise with its resolve function (Promise.withResolvers is Node 22+). */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** `createServer` options for tests: no signal handlers, no log output. */
export const quiet = { handleSignals: false, logStream: { write: () => true } };

/** The PierError `fn` throws; fails the test when it throws something else or nothing. */
export function thrown(fn: () => unknown): PierError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(PierError);
    return error as PierError;
  }
  throw new Error('expected a PierError, nothing was thrown');
}
