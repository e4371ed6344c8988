// Test helpers (not built): the app as a child process, and the conformance suite under Node 24.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SUITE_PACKAGE = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/conformance/package.json',
);
/** The suite's CLI; it needs Node 22+ (`fs.globSync`), so it runs under the registry's node@24. */
export const SUITE_CLI = join(dirname(SUITE_PACKAGE), 'dist', 'index.js');
export const SUITE_VERSION = (JSON.parse(readFileSync(SUITE_PACKAGE, 'utf8')) as { version: string }).version;

export type Mode = 'sessions' | 'stateless';

/** The app, listening on a free port. */
export interface RunningApp {
  readonly url: string;
  readonly stderr: () => string;
  /** SIGINT, then SIGKILL if it has not exited within 5 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `node dist/main.js --port 0 [--sessions]` and waits (at most 15 s) for the URL on stderr. */
export async function startApp(mode: Mode, extraArgs: readonly string[] = []): Promise<RunningApp> {
  const args = [
    join(APP_DIR, 'dist', 'main.js'),
    '--port',
    '0',
    ...(mode === 'sessions' ? ['--sessions'] : []),
  ];
  const child = spawn(process.execPath, [...args, ...extraArgs], {
    cwd: APP_DIR,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, PIER_LOG_LEVEL: 'warn' },
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolveExit) => child.on('close', (code) => resolveExit(code)));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => fail(new Error(`no URL on stderr within 15 s:\n${stderr}`)), 15_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /conformance server on (\S+)/.exec(stderr);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    void exited.then((code) => fail(new Error(`the app exited (${code}) before listening:\n${stderr}`)));
  });
  return {
    url,
    stderr: () => stderr,
    stop: () => stopChild(child, exited),
  };
}

/** What one run of the suite gave. */
export interface SuiteRun {
  readonly exitCode: number | null;
  readonly output: string;
  /** Checks by scenario, from the `checks.json` the suite wrote for each. */
  readonly checks: ReadonlyMap<string, readonly Check[]>;
}

/** One check of a scenario, as the suite records it. */
export interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  readonly description?: string;
  readonly errorMessage?: string;
}

/** What to run: every scenario a revision requires (`--requirements`), or one scenario by name. */
export type Selection =
  | { readonly requirements: string }
  | { readonly scenario: string; readonly specVersion: string; readonly force?: boolean };

/**
 * Runs the suite's server scenarios against `url`, under Node 24, killed after `timeoutMs`. With
 * `expectedFailures`, the suite itself exits non-zero on a failure or warning not listed there, and on
 * a listed scenario that passes.
 */
export async function runSuite(
  url: string,
  selection: Selection,
  options: { readonly expectedFailures?: string; readonly timeoutMs?: number } = {},
): Promise<SuiteRun> {
  const outputDir = mkdtempSync(join(tmpdir(), 'pier-conformance-'));
  try {
    const args = ['server', '--url', url, '--output-dir', outputDir];
    if ('requirements' in selection) args.push('--requirements', selection.requirements);
    else {
      args.push('--scenario', selection.scenario, '--spec-version', selection.specVersion);
      // Extension scenarios are off the spec timeline: the suite runs them by name only when forced.
      if (selection.force === true) args.push('--force');
    }
    if (options.expectedFailures !== undefined) args.push('--expected-failures', options.expectedFailures);
    const { exitCode, output } = await runNode24([SUITE_CLI, ...args], options.timeoutMs ?? 150_000);
    return { exitCode, output, checks: readChecks(outputDir) };
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}

/**
 * The server scenarios a revision requires and scores, as `list --server --requirements` prints them
 * (not the extension and pending ones it also runs without scoring).
 */
export async function listScenarios(requirements: string): Promise<string[]> {
  const { exitCode, output } = await runNode24(
    [SUITE_CLI, 'list', '--server', '--requirements', requirements],
    60_000,
  );
  if (exitCode !== 0) throw new Error(`conformance list failed (${exitCode}):\n${output}`);
  const server = /Server scenarios[^\n]*\n((?: {2}- \S+\n)+)/.exec(output)?.[1] ?? '';
  return [...server.matchAll(/^ {2}- (\S+)/gm)].map((match) => match[1] as string);
}

/** The scenarios listed in an expected-failures file (`server:` entries). */
export function expectedFailures(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^ {2}- ([\w-]+)/gm)].map((match) => match[1] as string);
}

/** Runs `tasks` at most `limit` at a time, resolving with their results in order. */
export async function pooled<T>(limit: number, tasks: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** Scenarios with a failure or a warning: what the suite counts against a baseline. */
export function notPassed(checks: ReadonlyMap<string, readonly Check[]>): string[] {
  return withStatus(checks, 'FAILURE', 'WARNING');
}

/** Scenarios with at least one check of one of `statuses`. */
export function withStatus(
  checks: ReadonlyMap<string, readonly Check[]>,
  ...statuses: Check['status'][]
): string[] {
  return [...checks]
    .filter(([, list]) => list.some((check) => statuses.includes(check.status)))
    .map(([scenario]) => scenario);
}

function readChecks(outputDir: string): Map<string, Check[]> {
  const checks = new Map<string, Check[]>();
  for (const dir of readdirSync(outputDir)) {
    // `server-<scenario>-<ISO time with dashes>`
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    checks.set(scenario, JSON.parse(readFileSync(join(outputDir, dir, 'checks.json'), 'utf8')) as Check[]);
  }
  return checks;
}

let node24: Promise<string> | undefined;

/**
 * A Node 22+ binary for the suite: this process's own when it is one (the repository's Node 24 pass),
 * else the registry's node@24 through npx, asked for once and then run directly.
 */
function suiteNode(): Promise<string> {
  if (Number(process.versions.node.split('.')[0]) >= 22) return Promise.resolve(process.execPath);
  node24 ??= run('npx', ['-y', '-p', 'node@24', '--', 'node', '-p', 'process.execPath'], 120_000).then(
    ({ exitCode, output }) => {
      const path = output.trim().split('\n').at(-1);
      if (exitCode !== 0 || path === undefined)
        throw new Error(`no node@24 from npx (${exitCode}):\n${output}`);
      return path;
    },
  );
  return node24;
}

async function runNode24(
  args: readonly string[],
  timeoutMs: number,
): Promise<{ exitCode: number | null; output: string }> {
  return run(await suiteNode(), args, timeoutMs);
}

function run(
  command: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<{ exitCode: number | null; output: string }> {
  const child = spawn(command, args, {
    cwd: APP_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that a timeout also kills what it started (npx starts a node).
    detached: true,
    // The suite colours its output; a plain log reads better in CI.
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    // npm's own chatter about the environment's configuration is not the suite's output.
    output += chunk.replace(/^npm warn Unknown (user|env) config.*\n/gm, '');
  });
  const exited = new Promise<number | null>((resolveExit) => child.on('close', (code) => resolveExit(code)));
  const timer = setTimeout(() => {
    output += `\n[killed after ${timeoutMs} ms]\n`;
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, timeoutMs);
  return exited.then((exitCode) => {
    clearTimeout(timer);
    return { exitCode, output };
  });
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return exited;
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}
