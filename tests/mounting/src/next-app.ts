// The Next.js App Router application in `next-app/` (its own route `/hello`, a proxy that marks every answer,
// and Pier at `app/api/[...pier]/route.ts`), built with the real `next build` and served by `next start` on
// 127.0.0.1 and a free port. The build runs in a copy, `.next-build/` (ignored by git), so what Next writes
// (tsconfig.json, next-env.d.ts, .next/) stays out of the tree; the copy sits beside `next-app/` so its
// imports of `../../src` and of this package's node_modules resolve the same.
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Mounted } from './mounts.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = `${root}next-app`;
const copy = `${root}.next-build`;
const nextBin = `${root}node_modules/next/dist/bin/next`;

const BUILD_MS = 240_000;
const START_MS = 30_000;

function next(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [nextBin, ...args], {
    cwd: copy,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function collect(child: ChildProcess): () => string {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  return () => output;
}

/** `next build` of a fresh copy of the app; fails with Next's output. */
export async function buildNextApp(): Promise<void> {
  await rm(copy, { recursive: true, force: true });
  await cp(source, copy, { recursive: true });
  const child = next(['build']);
  const output = collect(child);
  const timer = setTimeout(() => child.kill('SIGKILL'), BUILD_MS);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', resolve);
  }).finally(() => clearTimeout(timer));
  if (code !== 0) throw new Error(`next build exited with ${code ?? 'a signal'}:\n${output()}`);
}

/** `next start` of the built app; `env` reaches the app's server code. Stopped by its PID. */
export async function startNextApp(env: Record<string, string>): Promise<Mounted> {
  const child = next(['start', '--hostname', '127.0.0.1', '--port', '0'], env);
  const output = collect(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(`next start printed no address within ${START_MS} ms`), START_MS);
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${why}:\n${output()}`));
    };
    child.stdout?.on('data', () => {
      const found = /Local:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output());
      if (found?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(found[1]);
    });
    child.once('exit', (code) => fail(`next start exited with ${code ?? 'a signal'}`));
    child.once('error', (error) => fail(error.message));
  });
  return {
    name: 'next',
    origin,
    prefix: '/api',
    mcp: `${origin}/api/mcp`,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const pid = child.pid as number;
      process.kill(pid, 'SIGTERM');
      const forced = setTimeout(() => process.kill(pid, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(forced);
    },
  };
}
