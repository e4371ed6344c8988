// The command as a user runs it: `create-pier <dir> [flags]`, without a terminal, nothing installed.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, runCli, tempDir } from './test-helpers.js';

afterEach(removeTempDirs);

function manifest(dir: string) {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    name: string;
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
}

describe('create-pier --yes', () => {
  it('writes the default project: a decorated class over stdio with @pier/config', () => {
    const cwd = tempDir();
    const { code, stdout, stderr } = runCli(['my-server', '--yes', '--no-install'], cwd);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const dir = join(cwd, 'my-server');
    expect(readdirSync(dir, { recursive: true }).map(String).sort()).toEqual([
      '.gitignore',
      'README.md',
      'package.json',
      'src',
      'src/config.ts',
      'src/main.ts',
      'src/server.test.ts',
      'src/server.ts',
      'tsconfig.build.json',
      'tsconfig.json',
    ]);
    const pkg = manifest(dir);
    expect(pkg.name).toBe('my-server');
    expect(Object.keys(pkg.dependencies)).toEqual(['@pier/config', '@pier/core', 'zod']);
    expect(Object.keys(pkg.devDependencies)).toEqual([
      '@pier/cli',
      '@pier/testing',
      '@types/node',
      'typescript',
      'vite',
      'vitest',
    ]);
    expect(pkg.dependencies['@pier/core']).toMatch(/^\^\d+\.\d+\.\d+$/);
    expect(pkg.scripts).toEqual({
      dev: 'pier dev src/main.ts -- --api-key dev-only-key',
      build: 'tsc -p tsconfig.build.json',
      start: 'tsc -p tsconfig.build.json && node dist/main.js --api-key dev-only-key',
      test: 'vitest run',
      typecheck: 'tsc --noEmit',
    });
    const server = readFileSync(join(dir, 'src/server.ts'), 'utf8');
    expect(server).toContain("@MCPServer({ name: 'my-server'");
    expect(server).not.toMatch(/import .*reflect-metadata/);
    expect(JSON.stringify(pkg)).not.toContain('reflect-metadata');
    expect(readFileSync(join(dir, 'tsconfig.json'), 'utf8')).not.toContain('experimentalDecorators');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain(
      'npm start   # build, then serve MCP over stdio',
    );
    expect(readFileSync(join(dir, 'src/main.ts'), 'utf8')).not.toMatch(/#if|#else|#endif|__[A-Z]+__/);
    expect(stdout).toContain(
      'Created my-server: a Pier MCP server (a decorated class, stdio, @pier/config).',
    );
    expect(stdout).toContain('  cd my-server\n  npm install\n  npm test');
  });

  it('installs only what the answers name: plain objects, HTTP, health, no @pier/config, pnpm', () => {
    const cwd = tempDir();
    const args = [
      'svc',
      '--yes',
      '--no-install',
      '--template',
      'plain',
      '--transport',
      'http',
      '--no-config',
    ];
    const { code } = runCli([...args, '--pm', 'pnpm'], cwd);
    expect(code).toBe(0);
    const dir = join(cwd, 'svc');
    const pkg = manifest(dir);
    expect(Object.keys(pkg.dependencies)).toEqual([
      '@pier/core',
      '@pier/plugin-health',
      '@pier/transport-http',
      'zod',
    ]);
    expect(existsSync(join(dir, 'src/config.ts'))).toBe(false);
    const main = readFileSync(join(dir, 'src/main.ts'), 'utf8');
    expect(main).toContain("import { parseArgs } from 'node:util';");
    expect(main).toContain("await server.listen({ transport: 'streamable-http', port: config.port });");
    expect(readFileSync(join(dir, 'src/server.ts'), 'utf8')).toContain('defineServer({');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('pnpm test');
  });

  it('--no-health over HTTP leaves the plugin out', () => {
    const cwd = tempDir();
    expect(runCli(['svc', '--yes', '--no-install', '--transport', 'both', '--no-health'], cwd).code).toBe(0);
    expect(Object.keys(manifest(join(cwd, 'svc')).dependencies)).toEqual([
      '@pier/config',
      '@pier/core',
      '@pier/transport-http',
      'zod',
    ]);
  });

  it('without a terminal and without --yes, takes the defaults and says so', () => {
    const cwd = tempDir();
    const { code, stderr } = runCli(['my-server', '--no-install'], cwd);
    expect(code).toBe(0);
    expect(stderr).toBe('create-pier: no terminal to ask on: taking the defaults (as with --yes)\n');
    expect(manifest(join(cwd, 'my-server')).name).toBe('my-server');
  });

  it('pnpm create pier: the package manager running it is the default', () => {
    const cwd = tempDir();
    runCli(['p', '--yes', '--no-install'], cwd, {
      npm_config_user_agent: 'pnpm/10.34.9 npm/? node/v20.19.0',
    });
    expect(readFileSync(join(cwd, 'p', 'README.md'), 'utf8')).toContain('pnpm start');
  });
});

describe('refusals: exit 1 with one line on stderr, nothing written', () => {
  it('a directory that is not empty, unless --force', () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'taken'));
    writeFileSync(join(cwd, 'taken', 'notes.txt'), 'mine');
    const refused = runCli(['taken', '--yes', '--no-install'], cwd);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^create-pier: .*taken is not empty \(notes\.txt\): choose another directory, or pass --force to write into it\n$/,
    );
    expect(readdirSync(join(cwd, 'taken'))).toEqual(['notes.txt']);
    expect(runCli(['taken', '--yes', '--no-install', '--force'], cwd).code).toBe(0);
    expect(readFileSync(join(cwd, 'taken', 'notes.txt'), 'utf8')).toBe('mine');
    expect(existsSync(join(cwd, 'taken', 'package.json'))).toBe(true);
  });

  it('a directory holding only .git is fine', () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'repo', '.git'), { recursive: true });
    expect(runCli(['repo', '--yes', '--no-install'], cwd).code).toBe(0);
  });

  it.each([
    [['--transprt', 'http'], 'unknown option --transprt (did you mean --transport?); see create-pier --help'],
    [['--transport', 'sse'], '--transport must be stdio, http, both (got "sse")'],
    [['--template', 'class'], '--template must be decorators, plain (got "class")'],
    [['--pm', 'yarn'], '--pm must be npm, pnpm (got "yarn")'],
    [['--name'], '--name needs a value'],
    [['--name', 'My Server'], '"My Server" is not a valid package name'],
    [['--health', '--transport', 'stdio'], '--health needs --transport http or both'],
    [['a', 'b'], 'one directory at most (got "a", "b")'],
  ])('%j', (args, message) => {
    const cwd = tempDir();
    const { code, stderr } = runCli(['--yes', '--no-install', ...args], cwd);
    expect(code).toBe(1);
    expect(stderr.startsWith('create-pier: ')).toBe(true);
    expect(stderr).toContain(message);
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('--help and --version', () => {
  it('--help lists a flag for every question', () => {
    const { code, stdout } = runCli(['--help'], tempDir());
    expect(code).toBe(0);
    for (const flag of [
      '--name',
      '--transport',
      '--health',
      '--config',
      '--template',
      '--pm',
      '--yes',
      '--force',
    ]) {
      expect(stdout).toContain(flag);
    }
  });

  it('--version prints the version of the package', () => {
    const { stdout } = runCli(['--version'], tempDir());
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(stdout).toBe(`${version}\n`);
  });
});
