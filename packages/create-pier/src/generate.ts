// Writes a project: the template files rendered for the answers, and a package.json that names only
// the packages those answers need.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Answers, PackageManager } from './answers.js';
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
  const http = answers.transport !== 'stdio';
  const conditions = {
    decorators: answers.template === 'decorators',
    config: answers.config,
    both: answers.transport === 'both',
    http,
    health: http && answers.health,
  };
  const placeholders = {
    __NAME__: answers.name,
    __RUN__: answers.packageManager,
    __START_TRANSPORT__:
      answers.transport === 'http' ? 'streamable HTTP on http://127.0.0.1:3000/mcp' : 'stdio',
  };
  const sources: [string, string][] = [
    ['common/gitignore', '.gitignore'],
    ['common/tsconfig.json', 'tsconfig.json'],
    ['common/tsconfig.build.json', 'tsconfig.build.json'],
    ['common/README.md', 'README.md'],
    ['common/src/main.ts', 'src/main.ts'],
    ['common/src/server.test.ts', 'src/server.test.ts'],
    [`${answers.template}/src/server.ts`, 'src/server.ts'],
  ];
  if (answers.config) sources.push(['common/src/config.ts', 'src/config.ts']);
  const files: Record<string, string> = { 'package.json': packageJson(answers, conditions.health) };
  for (const [from, to] of sources) {
    files[to] = render(readFileSync(join(TEMPLATES, from), 'utf8'), conditions, placeholders);
  }
  return files;
}

function packageJson(answers: Answers, health: boolean): string {
  const dependencies: Record<string, string> = { '@pier/core': PIER_RANGE };
  if (answers.config) dependencies['@pier/config'] = PIER_RANGE;
  if (health) dependencies['@pier/plugin-health'] = PIER_RANGE;
  if (answers.transport !== 'stdio') dependencies['@pier/transport-http'] = PIER_RANGE;
  dependencies.zod = TOOL_VERSIONS.zod;
  const manifest = {
    name: answers.name,
    version: '0.1.0',
    private: true,
    description: 'An MCP server built with Pier',
    type: 'module',
    engines: { node: '>=20.19' },
    scripts: {
      // pier dev reloads on change and keeps a connected client's connection (stdio or HTTP).
      dev: 'pier dev src/main.ts -- --api-key dev-only-key',
      build: 'tsc -p tsconfig.build.json',
      start: 'tsc -p tsconfig.build.json && node dist/main.js --api-key dev-only-key',
      test: 'vitest run',
      // The tests too: tsconfig.json holds every file under src/, tsconfig.build.json leaves tests out of dist/.
      typecheck: 'tsc --noEmit',
    },
    dependencies: sorted(dependencies),
    devDependencies: {
      '@pier/cli': PIER_RANGE,
      '@pier/testing': PIER_RANGE,
      '@types/node': TOOL_VERSIONS['@types/node'],
      typescript: TOOL_VERSIONS.typescript,
      vite: TOOL_VERSIONS.vite,
      vitest: TOOL_VERSIONS.vitest,
    },
    // pnpm 10 runs no install scripts unless listed; esbuild (under pier dev and vitest) checks its binary in one.
    ...(answers.packageManager === 'pnpm' ? { pnpm: { onlyBuiltDependencies: ['esbuild'] } } : {}),
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
