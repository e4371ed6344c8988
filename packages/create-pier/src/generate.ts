// Writes a project: the template files rendered for the answers, and a package.json that names only
// the packages those answers need.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Answers, Framework, PackageManager, Runtime } from './answers.js';
import { CreatePierError } from './errors.js';
import { render } from './render.js';
import { PIER_RANGE, TOOL_VERSIONS } from './versions.js';

const TEMPLATES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'templates');

/** Options of {@link createProject}. */
export interface CreateProjectOptions {
  /** Write into a directory that is not empty. Default `false`. */
  readonly force?: boolean;
  /** Run the package manager's install once written. Default `true`. */
  readonly install?: boolean;
  /** Where the installer's output goes. Default: inherited (the terminal). */
  readonly installOutput?: 'inherit' | 'ignore';
}

/** What {@link createProject} wrote. */
export interface CreatedProject {
  readonly directory: string;
  /** Paths relative to `directory`, sorted. */
  readonly files: readonly string[];
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
}

/**
 * Writes a new project into `directory` (created when missing) and installs it. Rejects with
 * `DIRECTORY_NOT_EMPTY` when the directory holds anything but `.git`, unless `force`.
 */
export async function createProject(
  directory: string,
  answers: Answers,
  options: CreateProjectOptions = {},
): Promise<CreatedProject> {
  const root = resolve(directory);
  assertWritable(root, options.force ?? false);
  const files = projectFiles(answers);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const manifest = JSON.parse(files['package.json'] as string) as Pick<
    CreatedProject,
    'dependencies' | 'devDependencies'
  >;
  if (options.install ?? true)
    await install(root, answers.packageManager, options.installOutput ?? 'inherit');
  return {
    directory: root,
    files: Object.keys(files).sort(),
    dependencies: manifest.dependencies,
    devDependencies: manifest.devDependencies,
  };
}

/** Refuses a directory that holds anything but `.git` (unless `force`). */
export function assertWritable(root: string, force: boolean): void {
  if (force || !existsSync(root)) return;
  const entries = readdirSync(root).filter((entry) => entry !== '.git');
  if (entries.length > 0) {
    throw new CreatePierError(
      'DIRECTORY_NOT_EMPTY',
      `${root} is not empty (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}): ` +
        'choose another directory, or pass --force to write into it',
    );
  }
}

/** Every file of the project, by relative path. */
export function projectFiles(answers: Answers): Record<string, string> {
  const runtime = answers.runtime ?? 'node';
  const framework = runtime === 'node' ? (answers.framework ?? 'none') : 'none';
  const http = answers.transport !== 'stdio' || runtime !== 'node';
  const conditions = {
    decorators: answers.template === 'decorators',
    config: answers.config && runtime !== 'workers',
    both: answers.transport === 'both' && runtime === 'node' && framework === 'none',
    http,
    health: http && answers.health,
    node: runtime === 'node',
    bun: runtime === 'bun',
    deno: runtime === 'deno',
    workers: runtime === 'workers',
    fetch: runtime !== 'node',
    express: framework === 'express',
    fastify: framework === 'fastify',
    hono: framework === 'hono',
    framework: framework !== 'none',
    // The server is made in src/app.ts (a framework's app, or a fetch handler), not in main.ts.
    app: framework !== 'none' || runtime !== 'node',
  };
  const run = RUN[runtime];
  const placeholders = {
    __NAME__: answers.name,
    __RUN__: answers.packageManager,
    __START_TRANSPORT__:
      answers.transport === 'http' || runtime !== 'node'
        ? 'streamable HTTP on http://127.0.0.1:3000/mcp'
        : 'stdio',
    __RUNTIME__: RUNTIME_NAME[runtime],
    // A Worker's name: lowercase letters, digits and dashes.
    __WORKER_NAME__: answers.name.replace(/^@[^/]+\//, '').replace(/[^a-z0-9-]+/g, '-'),
    __START__: run.start,
  };
  const sources: [string, string][] = [
    ['common/gitignore', '.gitignore'],
    runtime === 'deno' ? ['common/deno.json', 'deno.json'] : ['common/tsconfig.json', 'tsconfig.json'],
    ['common/README.md', 'README.md'],
    ['common/src/server.test.ts', 'src/server.test.ts'],
    [`${answers.template}/src/server.ts`, 'src/server.ts'],
  ];
  if (runtime === 'node') sources.push(['common/tsconfig.build.json', 'tsconfig.build.json']);
  if (runtime === 'workers') {
    sources.push(['workers/src/worker.ts', 'src/worker.ts'], ['workers/wrangler.toml', 'wrangler.toml']);
  } else sources.push(['common/src/main.ts', 'src/main.ts']);
  if (conditions.app) {
    sources.push(
      [`app/${framework === 'none' ? 'fetch' : framework}.ts`, 'src/app.ts'],
      ['common/src/pier.ts', 'src/pier.ts'],
    );
  }
  if (conditions.config) sources.push(['common/src/config.ts', 'src/config.ts']);
  const files: Record<string, string> = {
    'package.json': packageJson(answers, runtime, framework, conditions.health, conditions.config),
  };
  for (const [from, to] of sources) {
    const text = render(readFileSync(join(TEMPLATES, from), 'utf8'), conditions, placeholders);
    // Deno imports a module by its own name (no sloppy imports): ./server.ts, not ./server.js.
    files[to] = runtime === 'deno' ? text.replace(/(from '\.\/[\w-]+)\.js'/g, "$1.ts'") : text;
  }
  return files;
}

/** How each runtime is named in the README. */
const RUNTIME_NAME: Record<Runtime, string> = {
  node: 'Node.js',
  bun: 'Bun',
  deno: 'Deno',
  workers: 'Cloudflare Workers',
};

/** The scripts that differ by runtime. */
const RUN: Record<Runtime, { readonly start: string; readonly scripts: Record<string, string> }> = {
  node: {
    start: 'tsc -p tsconfig.build.json && node dist/main.js --api-key dev-only-key',
    scripts: {
      // pier dev reloads on change and keeps a connected client's connection (stdio or HTTP).
      dev: 'pier dev src/main.ts -- --api-key dev-only-key',
      build: 'tsc -p tsconfig.build.json',
      start: 'tsc -p tsconfig.build.json && node dist/main.js --api-key dev-only-key',
      test: 'vitest run',
      // The tests too: tsconfig.json holds every file under src/, tsconfig.build.json leaves tests out of dist/.
      typecheck: 'tsc --noEmit',
    },
  },
  bun: {
    start: 'bun src/main.ts --api-key dev-only-key',
    scripts: {
      dev: 'bun --watch src/main.ts --api-key dev-only-key',
      start: 'bun src/main.ts --api-key dev-only-key',
      // bun test runs the vitest-style tests on Bun itself; vitest is installed for its types.
      test: 'bun test',
      typecheck: 'tsc --noEmit',
    },
  },
  deno: {
    start: 'deno run --allow-net --allow-env src/main.ts --api-key dev-only-key',
    scripts: {
      dev: 'deno run --watch --allow-net --allow-env src/main.ts --api-key dev-only-key',
      start: 'deno run --allow-net --allow-env src/main.ts --api-key dev-only-key',
      // vitest on Deno: its workers are Deno processes, so the tests run on Deno.
      test: 'deno run -A npm:vitest run',
      typecheck: 'deno check src',
    },
  },
  workers: {
    start: 'wrangler dev',
    scripts: {
      dev: 'wrangler dev',
      start: 'wrangler dev',
      deploy: 'wrangler deploy',
      // The tests start the worker on workerd (wrangler's startWorker) and drive it over HTTP.
      test: 'vitest run',
      typecheck: 'tsc --noEmit',
    },
  },
};

function packageJson(
  answers: Answers,
  runtime: Runtime,
  framework: Framework,
  health: boolean,
  config: boolean,
): string {
  const dependencies: Record<string, string> = { '@pier/core': PIER_RANGE };
  if (config) dependencies['@pier/config'] = PIER_RANGE;
  if (health) dependencies['@pier/plugin-health'] = PIER_RANGE;
  if (answers.transport !== 'stdio' || runtime !== 'node') dependencies['@pier/transport-http'] = PIER_RANGE;
  dependencies.zod = TOOL_VERSIONS.zod;
  const devDependencies: Record<string, string> = {
    '@pier/testing': PIER_RANGE,
    typescript: TOOL_VERSIONS.typescript,
    vitest: TOOL_VERSIONS.vitest,
  };
  if (runtime === 'node') {
    devDependencies['@pier/cli'] = PIER_RANGE;
    devDependencies['@types/node'] = TOOL_VERSIONS['@types/node'];
    devDependencies.vite = TOOL_VERSIONS.vite;
  }
  if (framework === 'express') {
    dependencies.express = TOOL_VERSIONS.express;
    devDependencies['@types/express'] = TOOL_VERSIONS['@types/express'];
  }
  if (framework === 'fastify') dependencies.fastify = TOOL_VERSIONS.fastify;
  if (framework === 'hono') {
    dependencies.hono = TOOL_VERSIONS.hono;
    dependencies['@hono/node-server'] = TOOL_VERSIONS['@hono/node-server'];
  }
  if (runtime === 'bun') devDependencies['@types/bun'] = TOOL_VERSIONS['@types/bun'];
  if (runtime === 'deno') devDependencies.vite = TOOL_VERSIONS.vite;
  if (runtime === 'workers') {
    devDependencies['@types/node'] = TOOL_VERSIONS['@types/node'];
    devDependencies.wrangler = TOOL_VERSIONS.wrangler;
  }
  const manifest = {
    name: answers.name,
    version: '0.1.0',
    private: true,
    description: 'An MCP server built with Pier',
    type: 'module',
    // Node runs the tools everywhere; wrangler needs Node 22.12.
    engines: { node: runtime === 'workers' ? '>=22.12' : '>=20.19' },
    scripts: RUN[runtime].scripts,
    dependencies: sorted(dependencies),
    devDependencies: sorted(devDependencies),
    // pnpm 10 runs no install scripts unless listed; esbuild (under pier dev, vitest and wrangler) checks
    // its binary in one, workerd fetches its own.
    ...(answers.packageManager === 'pnpm'
      ? { pnpm: { onlyBuiltDependencies: runtime === 'workers' ? ['esbuild', 'workerd'] : ['esbuild'] } }
      : {}),
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

function install(root: string, packageManager: PackageManager, output: 'inherit' | 'ignore'): Promise<void> {
  return new Promise((resolveInstall, reject) => {
    // stdout of the installer goes to stderr: create-pier's stdout is its own report.
    const child = spawn(packageManager, ['install'], {
      cwd: root,
      stdio: ['ignore', output === 'inherit' ? process.stderr : 'ignore', output],
      shell: process.platform === 'win32',
    });
    child.on('error', (error) =>
      reject(
        new CreatePierError(
          'INSTALL_FAILED',
          `could not run ${packageManager} install (${error.message}); install it, or pass --pm npm or --no-install`,
        ),
      ),
    );
    child.on('exit', (code) => {
      if (code === 0) resolveInstall();
      else
        reject(
          new CreatePierError('INSTALL_FAILED', `${packageManager} install exited with ${code} in ${root}`),
        );
    });
  });
}
