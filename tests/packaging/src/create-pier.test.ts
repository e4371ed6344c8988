// 5. `npm create pier` / `pnpm create pier`: the packed create-pier writes a project for several answers;
// each is installed from the packed Pier packages (and the registry's tools) by the package manager it
// names, and then meets its user: its typecheck, its tests, its start command answering a real SDK
// client over stdio, and over HTTP (with /health/ready) where those were chosen.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type ClientOptions, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type Finished,
  killAll,
  killGroup,
  NPM_FLAGS,
  PNPM,
  type RunOptions,
  runOk,
  startProcess,
  topLevel,
  userEnv,
} from './scratch.js';

type Installer = 'npm' | 'pnpm';
type Transport = 'stdio' | 'http' | 'both';

interface Combination {
  /** The project's folder, and the test titles' name for it. */
  readonly name: string;
  /** How it is created: `npm create pier` (npm exec) or `pnpm create pier` (pnpm dlx). */
  readonly installer: Installer;
  readonly flags: readonly string[];
  readonly transport: Transport;
  readonly health: boolean;
  /** Everything its package.json names, and so everything at the top of its node_modules. */
  readonly packages: readonly string[];
}

const TOOLS = ['@pier/cli', '@pier/testing', '@types/node', 'typescript', 'vite', 'vitest'];

/**
 * Every transport, both templates, health on and off, config on and off, both package managers —
 * in three projects (each costs an install and two compilations; create-pier's own tests type-check
 * all twenty combinations of answers).
 */
const COMBINATIONS: readonly Combination[] = [
  {
    name: 'defaults',
    installer: 'npm',
    flags: ['--yes'],
    transport: 'stdio',
    health: false,
    packages: ['@pier/config', '@pier/core', 'zod', ...TOOLS],
  },
  {
    name: 'http-health-args',
    installer: 'npm',
    flags: ['--transport', 'http', '--health', '--no-config'],
    transport: 'http',
    health: true,
    packages: ['@pier/core', '@pier/plugin-health', '@pier/transport-http', 'zod', ...TOOLS],
  },
  {
    // No --pm: `pnpm create` says who runs it, and the project is then pnpm's.
    name: 'pnpm-both-plain',
    installer: 'pnpm',
    flags: ['--yes', '--transport', 'both', '--template', 'plain', '--no-health'],
    transport: 'both',
    health: false,
    packages: ['@pier/config', '@pier/core', '@pier/transport-http', 'zod', ...TOOLS],
  },
];

/**
 * Installs, compilations and test runs at once, across every project: the machine (2 cores in CI)
 * runs other suites beside this one. The projects share npm's cache and pnpm's store.
 */
const AT_ONCE = 2;
const STEP_TIMEOUT_MS = 180_000;
/** A test waits for its project's steps, which wait for their turn: bounded, but above one step. */
const TEST_TIMEOUT_MS = 300_000;
const TARBALL_OF: Record<string, string> = {
  '@pier/cli': 'cli',
  '@pier/config': 'config',
  '@pier/core': 'core',
  '@pier/plugin-health': 'plugin-health',
  '@pier/testing': 'testing',
  '@pier/transport-http': 'transport-http',
};
const ERAS: readonly [string, ClientOptions][] = [
  ['2026-07-28', { versionNegotiation: { mode: 'auto' } }],
  ['2025', {}],
];

let scratch: string | undefined;
const stdioServers = new Set<number>();
const projects = new Map<string, Project>();

beforeAll(async () => {
  // A bare folder, as a user's home would be: no package.json above the projects.
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'pier-create-pier-')));
  const started = Date.now();
  // One after the other: concurrent `npm exec`s of one package race on npx's cache folder.
  for (const combination of COMBINATIONS) await generate(scratch, combination);
  console.info(`[packaging] create-pier: ${COMBINATIONS.length} projects written in ${seconds(started)} s`);
  for (const combination of COMBINATIONS) projects.set(combination.name, startSteps(scratch, combination));
}, 120_000);

afterAll(async () => {
  // Every step settles before its folder goes, whether or not a test looked at it.
  await Promise.allSettled([...projects.values()].flatMap((project) => Object.values(project)));
  for (const pid of stdioServers) killPid(pid);
  killAll();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
}, STEP_TIMEOUT_MS);

for (const combination of COMBINATIONS)
  describe(`create-pier ${combination.flags.join(' ')}, installed with ${combination.installer}`, {
    timeout: TEST_TIMEOUT_MS,
  }, () => {
    const project = () => projects.get(combination.name) as Project;

    it('installs the packed Pier packages and only what its package.json names', async () => {
      const { manifest, installOutput } = await project().installed;
      expect(
        [...Object.keys(manifest.dependencies), ...Object.keys(manifest.devDependencies)].sort(),
      ).toEqual([...combination.packages].sort());
      expect(await directDependencies(project().dir, combination.installer)).toEqual(
        [...combination.packages].sort(),
      );
      // pnpm 10 runs no install script unless listed: the project lists esbuild's (pier dev and vitest need it).
      expect(installOutput).not.toContain('Ignored build scripts');
    });

    it('passes its typecheck, tests included', async () => {
      const typecheck = await project().typechecked;
      expect(withoutColours(typecheck.stdout)).not.toMatch(/error TS/);
      expect(typecheck.code).toBe(0);
    });

    it('passes its tests before a line is changed, for both eras', async () => {
      const report = withoutColours((await project().tested).stdout);
      // Four behaviours in each of two eras, and HTTP in each era when HTTP was chosen.
      const count = combination.transport === 'stdio' ? 8 : 10;
      expect(report).toMatch(new RegExp(`Tests\\s+${count} passed \\(${count}\\)`));
    });

    if (combination.transport !== 'http')
      it('its start command serves MCP over stdio: the SDK client lists and calls the tool', async () => {
        const { server, tools, greeting } = await project().servedStdio;
        expect(server).toMatchObject({ name: combination.name, version: '0.1.0' });
        expect(tools).toEqual(['greet']);
        expect(greeting).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
      });

    if (combination.transport !== 'stdio')
      it(`serves MCP over streamable HTTP to both eras; /health/ready ${combination.health ? 'is 200' : 'is not served'}`, async () => {
        const served = await project().servedHttp;
        expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        for (const [era] of ERAS) {
          expect(served.eras[era], era).toEqual({ tools: ['greet'], greeting: 'Hello, Ada!' });
        }
        if (combination.health) {
          expect(served.ready.status).toBe(200);
          expect(served.ready.body).toEqual({
            status: 'healthy',
            checks: { self: { status: 'healthy', critical: true } },
          });
        } else {
          // The negative control: without the plugin nothing answers there.
          expect(served.ready.status).toBe(404);
        }
      });
  });

interface Manifest {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
}

interface HttpServed {
  readonly url: string;
  readonly eras: Record<string, { tools: string[]; greeting: unknown }>;
  readonly ready: { status: number; body: unknown };
}

/** What happened to one project, step by step; each step starts as soon as what it needs is done. */
interface Project {
  readonly dir: string;
  readonly installed: Promise<{ manifest: Manifest; installOutput: string }>;
  readonly typechecked: Promise<Finished>;
  readonly tested: Promise<Finished>;
  readonly servedStdio: Promise<{ server: unknown; tools: string[]; greeting: unknown }>;
  readonly servedHttp: Promise<HttpServed>;
}

/** What `npm create pier@latest <name> -- <flags>` and `pnpm create pier <name> <flags>` run. */
async function generate(root: string, { name, installer, flags }: Combination): Promise<void> {
  const tarball = inject('tarballs')['create-pier'];
  const command =
    installer === 'npm'
      ? ['npm', 'exec', '--yes', `--package=${tarball}`, '--', 'create-pier']
      : // dlx keeps what it fetched for a day, by spec: this run's tarball has the same path as the last one's.
        ['npx', ...PNPM, '--config.dlx-cache-max-age=0', `--package=${tarball}`, 'dlx', 'create-pier'];
  const [program, ...args] = command as [string, ...string[]];
  const { stdout } = await runOk(program, [...args, name, ...flags, '--no-install'], {
    cwd: root,
    env: userEnv(),
    timeoutMs: 60_000,
  });
  expect(stdout).toContain(`\n  cd ${name}\n  ${installer} install\n  ${installer} test`);
}

function startSteps(root: string, combination: Combination): Project {
  const dir = join(root, combination.name);
  const installed = heavy(() => install(dir, combination.installer));
  const typechecked = installed.then(() => heavy(() => runScript(combination, ['typecheck'])));
  const tested = installed.then(() => heavy(() => runScript(combination, ['test'])));
  const servedStdio =
    combination.transport === 'http'
      ? Promise.reject(new Error('no stdio for an HTTP-only project'))
      : installed.then(() => heavy(() => serveStdio(combination, dir)));
  const servedHttp =
    combination.transport === 'stdio'
      ? Promise.reject(new Error('no HTTP for a stdio project'))
      : combination.transport === 'http'
        ? // `npm start -- --port 0`: the start command itself, on a free port.
          installed.then(() =>
            heavy(() => serveHttp(combination, dir, startCommand(combination, ['--port', '0']))),
          )
        : // With both, start serves stdio; the README's command serves HTTP from what start built.
          servedStdio
            .catch(() => undefined)
            .then(() =>
              heavy(() =>
                serveHttp(combination, dir, [
                  process.execPath,
                  'dist/main.js',
                  '--transport',
                  'streamable-http',
                  '--port',
                  '0',
                  '--api-key',
                  'dev-only-key',
                ]),
              ),
            );
  const project: Project = { dir, installed, typechecked, tested, servedStdio, servedHttp };
  // A step a test does not await (or awaits later) must not count as an unhandled rejection.
  for (const step of Object.values(project)) if (step instanceof Promise) step.catch(() => undefined);
  return project;
}

/** Points the @pier/* dependencies at this run's tarballs (the rest comes from the registry) and installs. */
async function install(
  dir: string,
  installer: Installer,
): Promise<{ manifest: Manifest; installOutput: string }> {
  const tarballs = inject('tarballs') as Record<string, string>;
  const file = join(dir, 'package.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  const local = structuredClone(manifest);
  for (const group of [local.dependencies, local.devDependencies]) {
    for (const name of Object.keys(group)) {
      const folder = TARBALL_OF[name];
      if (folder === undefined) continue;
      // What the project names is the release range; here the release is this run's tarball.
      expect(group[name], name).toMatch(/^\^\d+\.\d+\.\d+$/);
      group[name] = `file:${tarballs[folder]}`;
    }
  }
  writeFileSync(file, `${JSON.stringify(local, null, 2)}\n`);
  const started = Date.now();
  const options: RunOptions = { cwd: dir, env: userEnv(), timeoutMs: STEP_TIMEOUT_MS };
  const { stdout, stderr } =
    installer === 'npm'
      ? await runOk('npm', ['install', ...NPM_FLAGS], options)
      : // Outside any workspace; a fresh project has no lockfile to freeze (CI=true would ask for one).
        await runOk(
          'npx',
          [...PNPM, 'install', '--ignore-workspace', '--no-frozen-lockfile', '--prefer-offline'],
          options,
        );
  console.info(`[packaging] create-pier ${dir.split('/').pop()}: ${installer} install ${seconds(started)} s`);
  return { manifest, installOutput: `${stdout}${stderr}` };
}

/** `npm run <script>` / `pnpm <script>`, as the project's README says. */
function runScript(combination: Combination, script: readonly string[]): Promise<Finished> {
  const [program, ...args] = scriptCommand(combination, script);
  return timed(`${combination.name} ${script.join(' ')}`, () =>
    runOk(program as string, args, {
      cwd: join(scratch as string, combination.name),
      env: userEnv(),
      timeoutMs: STEP_TIMEOUT_MS,
    }),
  );
}

function scriptCommand({ installer }: Combination, script: readonly string[]): string[] {
  return installer === 'npm' ? ['npm', 'run', '--silent', ...script] : ['npx', ...PNPM, ...script];
}

/** `npm start -- <args>` / `pnpm start <args>`: what the README's start command runs, with extra arguments. */
function startCommand({ installer }: Combination, extra: readonly string[] = []): string[] {
  if (installer === 'npm') return ['npm', 'start', ...(extra.length > 0 ? ['--', ...extra] : [])];
  return ['npx', ...PNPM, 'start', ...extra];
}

/**
 * The start command as an MCP client configured with it runs it, talked to by the SDK's stdio client.
 * `setsid` gives it a process group of its own, so that what npm started dies with it.
 */
async function serveStdio(combination: Combination, dir: string) {
  const [program, ...args] = startCommand(combination);
  const transport = new StdioClientTransport({
    command: 'setsid',
    args: [program as string, ...args],
    cwd: dir,
    env: userEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'packaging', version: '1.0.0' });
  const started = Date.now();
  try {
    // The start command compiles first: the client's first message waits in the pipe meanwhile.
    await client.connect(transport, { timeout: STEP_TIMEOUT_MS });
    if (transport.pid !== null) stdioServers.add(transport.pid);
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    console.info(`[packaging] create-pier ${combination.name}: start over stdio ${seconds(started)} s`);
    return { server: client.getServerVersion(), tools, greeting: result.content };
  } finally {
    const pid = transport.pid;
    await client.close();
    if (pid !== null) {
      killPid(pid);
      stdioServers.delete(pid);
    }
  }
}

/** Starts `command` (which must log core's listening line), then both eras call the tool; /health/ready. */
async function serveHttp(
  combination: Combination,
  dir: string,
  command: readonly string[],
): Promise<HttpServed> {
  const [program, ...args] = command as [string, ...string[]];
  const started = Date.now();
  const server = startProcess(program, args, { cwd: dir, env: userEnv() });
  try {
    const url = await listeningUrl(server.stderr, server.exited);
    const eras: HttpServed['eras'] = {};
    for (const [era, options] of ERAS) {
      const client = new Client({ name: `packaging-${era}`, version: '1.0.0' }, options);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const tools = (await client.listTools()).tools.map((tool) => tool.name);
        const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
        const [first] = result.content as { text?: string }[];
        eras[era] = { tools, greeting: first?.text };
      } finally {
        await client.close();
      }
    }
    const response = await fetch(new URL('/health/ready', url));
    const text = await response.text();
    const ready = { status: response.status, body: response.status === 200 ? JSON.parse(text) : text };
    console.info(`[packaging] create-pier ${combination.name}: HTTP ${seconds(started)} s`);
    return { url, eras, ready };
  } finally {
    killGroup(server.process, 'SIGKILL');
    await server.exited;
  }
}

/** Core's `listening transport=streamable-http url=…` line on stderr; the start command compiles first. */
function listeningUrl(stderr: () => string, exited: Promise<Finished>): Promise<string> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    const look = () => {
      const url = /listening transport=streamable-http url=(\S+)/.exec(stderr())?.[1];
      if (url !== undefined) return resolve(url);
      if (Date.now() > deadline) return reject(new Error(`no listening line; stderr:\n${stderr()}`));
      timer = setTimeout(look, 100);
    };
    let timer = setTimeout(look, 0);
    void exited.then((result) => {
      clearTimeout(timer);
      reject(
        new Error(`the server exited (${result.code ?? result.signal}) before listening:\n${result.stderr}`),
      );
    });
  });
}

/** The packages at the top of node_modules that the project itself asked for. */
async function directDependencies(dir: string, installer: Installer): Promise<string[]> {
  if (installer === 'pnpm') return topLevel(dir);
  const { stdout } = await runOk('npm', ['ls', '--depth=0', '--json'], { cwd: dir, env: userEnv() });
  return Object.keys((JSON.parse(stdout) as { dependencies: object }).dependencies).sort();
}

// --- bounded concurrency -------------------------------------------------------------------------

let running = 0;
const waiting: (() => void)[] = [];

/** Runs `work` when fewer than {@link AT_ONCE} heavy steps are running; first asked, first served. */
async function heavy<T>(work: () => Promise<T>): Promise<T> {
  // A finishing step hands its place straight to the next in line, so none can overtake the queue.
  if (running < AT_ONCE) running++;
  else await new Promise<void>((wake) => waiting.push(wake));
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next === undefined) running--;
    else next();
  }
}

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await work();
  console.info(`[packaging] create-pier ${label}: ${seconds(started)} s`);
  return result;
}

function seconds(since: number): string {
  return ((Date.now() - since) / 1000).toFixed(1);
}

function killPid(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function withoutColours(text: string): string {
  return text.replaceAll(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
}
