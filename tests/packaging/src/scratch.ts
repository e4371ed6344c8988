// Scratch projects outside the workspace, the installers a user runs there, and child processes
// that cannot outlive their test.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

export const PACKAGES = [
  'config',
  'core',
  'transport-http',
  'plugin-health',
  'plugin-auth',
  'testing',
  'cli',
] as const;
export type PackageFolder = (typeof PACKAGES)[number];

export const WORKSPACE = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
/** The workspace's compiler and Node types, used by absolute path: nothing is installed for them. */
export const TSC = join(WORKSPACE, 'node_modules', 'typescript', 'bin', 'tsc');
export const TYPE_ROOTS = join(WORKSPACE, 'node_modules', '@types');

export const PNPM = ['-y', 'pnpm@10.34.9'] as const;
/** Satisfies both `@pier/config` (zod ^4.1.0) and `@pier/core` (zod ^4.2.0); the workspace's own. */
export const ZOD = 'zod@4.6.7';
/** Installs reuse the machine's cache and only ask the registry for what it lacks. */
export const NPM_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'] as const;

const KEPT_NPM_CONFIG = new Set([
  'npm_config_cache',
  'npm_config_registry',
  'npm_config_userconfig',
  'npm_config_globalconfig',
  'npm_config_cafile',
]);

/**
 * The environment of a user's shell: without what `pnpm run`, turbo and vitest add, since
 * `npm_config_local_prefix` alone would make npm install into the workspace package that runs the tests.
 */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    if ((lower.startsWith('npm_') || lower.startsWith('pnpm_')) && !KEPT_NPM_CONFIG.has(lower)) continue;
    if (/^(INIT_CWD|NODE_OPTIONS|NODE_PATH|VITEST.*|TURBO_.*|TINYPOOL_.*)$/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

export interface Scratch {
  readonly dir: string;
  remove(): void;
}

/**
 * A fresh project folder under the system temp folder (outside the workspace, so no installer finds
 * its pnpm-workspace.yaml or node_modules), holding the files of `fixtures/<fixture>/`.
 */
/**
 * Copies `fixture` into a scratch project before this file's tests and `npm install`s `packages` there
 * (plus zod); removes it after them. Read `dir` inside tests, once the install has run.
 */
export function npmProjectForSuite(
  fixture: string,
  packages: () => readonly string[],
): { readonly dir: string } {
  let project: Scratch | undefined;
  const suite = {
    get dir(): string {
      if (!project) throw new Error(`scratch project ${fixture} is not set up yet`);
      return project.dir;
    },
  };
  beforeAll(async () => {
    project = scratchProject(fixture);
    await runOk('npm', ['install', ...packages(), ZOD, ...NPM_FLAGS], {
      cwd: project.dir,
      env: userEnv(),
      timeoutMs: 120_000,
    });
  });
  afterAll(() => project?.remove());
  return suite;
}

export function scratchProject(fixture: string, packageJson: object = {}): Scratch {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `pier-${fixture}-`)));
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  const manifest = {
    name: `scratch-${fixture}`,
    version: '1.0.0',
    private: true,
    type: 'module',
    ...packageJson,
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

/** Runs a command to its end (killed, with its children, after `timeoutMs`) and collects its output. */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<Finished> {
  const started = startProcess(command, args, options);
  const timer = setTimeout(() => killGroup(started.process, 'SIGKILL'), options.timeoutMs ?? 60_000);
  return started.exited.finally(() => clearTimeout(timer));
}

/** Like {@link run}, but a non-zero exit is an error that carries the whole output. */
export async function runOk(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<Finished> {
  const finished = await run(command, args, options);
  if (finished.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${options.cwd}) exited with ${finished.code ?? finished.signal}\n` +
        `stdout:\n${finished.stdout}\nstderr:\n${finished.stderr}`,
    );
  }
  return finished;
}

/** `node <args>` in a scratch project, with the user's environment. */
export function runNode(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<Finished> {
  return run(process.execPath, args, { cwd, env: userEnv(env), timeoutMs: 30_000 });
}

export interface Started {
  readonly process: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<Finished>;
  /** Resolves with the first complete stdout line; rejects if the process ends or `timeoutMs` passes first. */
  firstLine(timeoutMs?: number): Promise<string>;
}

const running = new Set<ChildProcess>();

/**
 * Starts a process in a group of its own (`npx` runs the installer as a child of its own), so that
 * {@link killGroup} and {@link killAll} end it with its children.
 */
export function startProcess(command: string, args: readonly string[], options: RunOptions): Started {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? userEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<Finished>((done, fail) => {
    child.on('error', fail);
    child.on('close', (code, signal) => {
      running.delete(child);
      done({ code, signal, stdout, stderr });
    });
  });
  const firstLine = (timeoutMs = 20_000) =>
    new Promise<string>((done, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`no stdout line within ${timeoutMs} ms; stderr:\n${stderr}`)),
        timeoutMs,
      );
      const look = () => {
        const end = stdout.indexOf('\n');
        if (end < 0) return;
        clearTimeout(timer);
        child.stdout.off('data', look);
        done(stdout.slice(0, end));
      };
      child.stdout.on('data', look);
      look();
      exited.then((result) => {
        clearTimeout(timer);
        fail(
          new Error(
            `exited with ${result.code ?? result.signal} before a stdout line; stderr:\n${result.stderr}`,
          ),
        );
      }, fail);
    });
  return { process: child, stdout: () => stdout, stderr: () => stderr, exited, firstLine };
}

/** Sends `signal` to the process and every process it started. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Kills every process started by {@link startProcess} that is still running, with its children. */
export function killAll(): void {
  for (const child of running) killGroup(child, 'SIGKILL');
  running.clear();
}

/** The installed packages, by name, as `npm ls --all --parseable` lists them (the project itself left out). */
export async function installedPackages(dir: string): Promise<string[]> {
  const { stdout } = await runOk('npm', ['ls', '--all', '--parseable'], { cwd: dir, env: userEnv() });
  const prefix = join(dir, 'node_modules');
  return stdout
    .split('\n')
    .filter((line) => line.startsWith(`${prefix}/`))
    .map((line) => line.slice(prefix.length + 1))
    .sort();
}

/** Bytes under `dir/node_modules`, as `du -sb node_modules` counts them. */
export async function nodeModulesBytes(dir: string): Promise<number> {
  const { stdout } = await runOk('du', ['-sb', 'node_modules'], { cwd: dir });
  return Number(stdout.split('\t')[0]);
}

/** The entries of `dir/node_modules`, scopes expanded: `['@pier/config', 'zod']`. */
export function topLevel(dir: string): string[] {
  const root = join(dir, 'node_modules');
  return readdirSync(root)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) =>
      name.startsWith('@') ? readdirSync(join(root, name)).map((inner) => `${name}/${inner}`) : [name],
    )
    .sort();
}
