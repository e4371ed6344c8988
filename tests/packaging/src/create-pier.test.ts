// 5. `npm create pier` / `pnpm create pier`: the packed create-pier writes a project for several answers;
// each is installed from the packed Pier packages (and the registry's tools) by the package manager it
// names, and then meets its user: its typecheck, its tests, its start command answering a real SDK
// client over stdio, and over HTTP (with /health/ready) where those were chosen. Projects for Bun, Deno
// and Cloudflare Workers (`--runtime`) run their tests on that runtime (Bun and Deno from npm, as the
// runtimes scenario installs them; the Worker on workerd through wrangler, which needs Node 22.12+), and
// projects mounted in Express, Fastify and Hono (`--framework`) serve MCP beside the app's own routes.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, type ClientOptions, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type Finished,
  killAll,
  killGroup,
  NPM_FLAGS,
  node22Binary,
  PNPM,
  RUNTIME_PACKAGES,
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
  /** `--runtime`: where its tests and its start command run. Default Node. */
  readonly runtime?: 'bun' | 'deno' | 'workers';
  /** How many tests its own suite has (both eras; HTTP, health and the app where chosen). */
  readonly tests: number;
}

const TOOLS = ['@pier/cli', '@pier/testing', '@types/node', 'typescript', 'vite', 'vitest'];
/** What a fetch-handler project names, whatever its runtime. */
const FETCH = [
  '@pier/core',
  '@pier/plugin-health',
  '@pier/transport-http',
  'zod',
  '@pier/testing',
  'typescript',
  'vitest',
];

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
    tests: 8,
  },
  {
    name: 'http-health-args',
    installer: 'npm',
    flags: ['--transport', 'http', '--health', '--no-config'],
    transport: 'http',
    health: true,
    packages: ['@pier/core', '@pier/plugin-health', '@pier/transport-http', 'zod', ...TOOLS],
    tests: 10,
  },
  {
    // No --pm: `pnpm create` says who runs it, and the project is then pnpm's.
    name: 'pnpm-both-plain',
    installer: 'pnpm',
    flags: ['--yes', '--transport', 'both', '--template', 'plain', '--no-health'],
    transport: 'both',
    health: false,
    packages: ['@pier/config', '@pier/core', '@pier/transport-http', 'zod', ...TOOLS],
    tests: 10,
  },
  {
    // In memory and over HTTP inside the app: its own route and middleware, its own 404, health.
    name: 'express-decorators',
    installer: 'npm',
    flags: ['--framework', 'express', '--no-config'],
    transport: 'http',
    health: true,
    packages: [
      '@pier/core',
      '@pier/plugin-health',
      '@pier/transport-http',
      'express',
      '@types/express',
      'zod',
      ...TOOLS,
    ],
    tests: 12,
  },
  {
    name: 'pnpm-fastify-plain',
    installer: 'pnpm',
    flags: ['--yes', '--framework', 'fastify', '--template', 'plain'],
    transport: 'http',
    health: true,
    packages: [
      '@pier/config',
      '@pier/core',
      '@pier/plugin-health',
      '@pier/transport-http',
      'fastify',
      'zod',
      ...TOOLS,
    ],
    tests: 12,
  },
  {
    name: 'hono-no-health',
    installer: 'npm',
    flags: ['--yes', '--framework', 'hono', '--no-health'],
    transport: 'http',
    health: false,
    packages: [
      '@pier/config',
      '@pier/core',
      '@pier/transport-http',
      'hono',
      '@hono/node-server',
      'zod',
      ...TOOLS,
    ],
    tests: 11,
  },
  {
    // bun test runs the vitest-style suite on Bun; one of its tests asserts it runs there.
    name: 'bun-plain',
    installer: 'npm',
    flags: ['--yes', '--runtime', 'bun', '--template', 'plain', '--no-config'],
    transport: 'http',
    health: true,
    runtime: 'bun',
    packages: [...FETCH, '@types/bun'],
    tests: 12,
  },
  {
    // vitest under Deno (its workers are Deno processes); decorators and @pier/config on Deno.
    name: 'deno-decorators',
    installer: 'npm',
    flags: ['--yes', '--runtime', 'deno'],
    transport: 'http',
    health: true,
    runtime: 'deno',
    packages: [...FETCH, '@pier/config', 'vite'],
    tests: 12,
  },
  {
    // The Worker on workerd through wrangler's startWorker, both eras and health.
    name: 'workers-plain',
    installer: 'npm',
    flags: ['--yes', '--runtime', 'workers', '--template', 'plain'],
    transport: 'http',
    health: true,
    runtime: 'workers',
    packages: [...FETCH, '@types/node', 'wrangler'],
    tests: 11,
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
/** PATH entries for Bun and Deno (from npm) and a Node for wrangler, resolved before any project runs. */
const runtimePath: Record<string, string> = {};
const stdioServers = new Set<number>();
const projects = new Map<string, Project>();

beforeAll(async () => {
  // A bare folder, as a user's home would be: no package.json above the projects.
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'pier-create-pier-')));
  await installRuntimes(scratch);
  const started = Date.now();
  // One after the other: concurrent `npm exec`s of one package race on npx's cache folder.
  for (const combination of COMBINATIONS) await generate(scratch, combination);
  console.info(`[packaging] create-pier: ${COMBINATIONS.length} projects written in ${seconds(started)} s`);
  for (const combination of COMBINATIONS) projects.set(combination.name, startSteps(scratch, combination));
}, 300_000);

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
      expect(await directDependencies(project().dir, combination)).toEqual([...combination.packages].sort());
      // pnpm 10 runs no install script unless listed: the project lists esbuild's (pier dev and vitest need it).
      expect(installOutput).not.toContain('Ignored build scripts');
    });

    it('passes its typecheck, tests included', async () => {
      const typecheck = await project().typechecked;
      expect(withoutColours(typecheck.stdout)).not.toMatch(/error TS/);
      expect(typecheck.code).toBe(0);
    });

    it(`passes its tests before a line is changed, for both eras${combination.runtime === undefined ? '' : `, on ${combination.runtime}`}`, async () => {
      const { stdout, stderr } = await project().tested;
      const count = combination.tests;
      if (combination.runtime === 'bun') {
        // bun test reports on stderr.
        const report = withoutColours(`${stdout}${stderr}`);
        expect(report).toMatch(new RegExp(`\\b${count} pass\\b`));
        expect(report).toMatch(/\b0 fail\b/);
      } else {
        // Four behaviours in each of two eras; HTTP (by era), health and the app where chosen.
        expect(withoutColours(stdout)).toMatch(new RegExp(`Tests\\s+${count} passed \\(${count}\\)`));
      }
    });

    if (combination.transport !== 'http')
      it('its start command serves MCP over stdio: the SDK client lists and calls the tool', async () => {
        const { server, tools, greeting } = await project().servedStdio;
        expect(server).toMatchObject({ name: combination.name, version: '0.1.0' });
        expect(tools).toEqual(['greet']);
        expect(greeting).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
      });

    // A Worker's start command is wrangler dev: its tests already serve it on workerd the same way.
    if (combination.transport !== 'stdio' && combination.runtime !== 'workers')
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
  const installed = heavy(() => install(dir, combination));
  const typechecked = installed.then(() => heavy(() => runScript(combination, ['typecheck'])));
  const tested = installed.then(() => heavy(() => runScript(combination, ['test'])));
  const servedStdio =
    combination.transport === 'http'
      ? Promise.reject(new Error('no stdio for an HTTP-only project'))
      : installed.then(() => heavy(() => serveStdio(combination, dir)));
  const servedHttp =
    combination.transport === 'stdio' || combination.runtime === 'workers'
      ? Promise.reject(new Error('no HTTP start command to run here'))
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
  combination: Combination,
): Promise<{ manifest: Manifest; installOutput: string }> {
  const { installer } = combination;
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
  const options: RunOptions = { cwd: dir, env: projectEnv(combination), timeoutMs: STEP_TIMEOUT_MS };
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
      env: projectEnv(combination),
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
  const server = startProcess(program, args, { cwd: dir, env: projectEnv(combination) });
  try {
    const url = await listeningUrl(server.stderr, server.exited);
    if (combination.runtime !== undefined)
      expect(server.stderr()).toContain(`${combination.name}: MCP on ${url}`);
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

/**
 * Core's `listening transport=streamable-http url=…` line on stderr, or the `<name>: MCP on <url>` line of
 * a project that serves through an app or a runtime's server; the start command compiles first.
 */
function listeningUrl(stderr: () => string, exited: Promise<Finished>): Promise<string> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    const look = () => {
      const found = /listening transport=streamable-http url=(\S+)|: MCP on (\S+)/.exec(stderr());
      const url = found?.[1] ?? found?.[2];
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
async function directDependencies(dir: string, combination: Combination): Promise<string[]> {
  if (combination.installer === 'pnpm') return topLevel(dir);
  const { stdout } = await runOk('npm', ['ls', '--depth=0', '--json'], {
    cwd: dir,
    env: projectEnv(combination),
  });
  return Object.keys((JSON.parse(stdout) as { dependencies: object }).dependencies).sort();
}

// --- runtimes ----------------------------------------------------------------------------------

/**
 * Bun and Deno from npm into a folder of their own (as a user has them on PATH), and a Node 22.12+ for
 * wrangler, when a project needs them.
 */
async function installRuntimes(root: string): Promise<void> {
  const needs = new Set(COMBINATIONS.map((combination) => combination.runtime));
  if (needs.has('bun') || needs.has('deno')) {
    const dir = join(root, '.runtimes');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), '{ "name": "runtimes", "private": true }\n');
    const packages = RUNTIME_PACKAGES.filter((name) => /^@(oven|deno)\//.test(name));
    await runOk('npm', ['install', ...packages, ...NPM_FLAGS], {
      cwd: dir,
      env: userEnv(),
      timeoutMs: 180_000,
    });
    runtimePath.bun = join(dir, 'node_modules', '@oven', 'bun-linux-x64', 'bin');
    runtimePath.deno = join(dir, 'node_modules', '@deno', 'linux-x64-glibc');
  }
  if (needs.has('workers')) runtimePath.workers = dirname(await node22Binary());
}

/** The user's environment, with the project's runtime first on PATH. */
function projectEnv(combination: Combination): NodeJS.ProcessEnv {
  const first = combination.runtime === undefined ? undefined : runtimePath[combination.runtime];
  if (first === undefined) return userEnv();
  return userEnv({ PATH: `${first}:${process.env.PATH ?? ''}`, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' });
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
