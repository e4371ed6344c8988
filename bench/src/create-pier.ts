// From `create-pier --yes` to a passing generated test, with a warm package cache, and what the
// generated project installs against the same server written on the bare SDK, installed the same way.
// node dist/create-pier.js [runs=3]   (needs the packed packages: turbo run pack --filter=./packages/*)
// Writes its section of RESULTS.md between the create-pier markers, leaving the rest as it is.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CREATE_PIER_END as END, CREATE_PIER_START as START } from './sections.js';

const BENCH = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WORKSPACE = resolve(BENCH, '..');
const RESULTS = join(BENCH, 'RESULTS.md');
const NPM_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
const FOLDERS: Record<string, string> = {
  '@pier/config': 'config',
  '@pier/core': 'core',
  '@pier/plugin-health': 'plugin-health',
  '@pier/testing': 'testing',
  '@pier/transport-http': 'transport-http',
};
const runs = Number(process.argv[2] ?? 3);

const tarball = (folder: string) => {
  const file = join(WORKSPACE, 'packages', folder, '.pack', 'package.tgz');
  if (!existsSync(file))
    throw new Error(`${file} is missing: npx -y pnpm@10.34.9 turbo run pack --filter=./packages/*`);
  return file;
};

/** A user's shell: without what pnpm, turbo and npm add to the environment of a script. */
function env(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(npm_|pnpm_)/i.test(key) || key.toLowerCase() === 'npm_config_cache',
    ),
  );
}

function run(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, env: env(), encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.status}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

/** Seconds of each phase: create-pier, npm install, npm test (which must pass). */
function scaffoldToGreen(root: string, name: string): { create: number; install: number; test: number } {
  const t0 = performance.now();
  run(
    'npm',
    [
      'exec',
      '--yes',
      `--package=${tarball('create-pier')}`,
      '--',
      'create-pier',
      name,
      '--yes',
      '--no-install',
    ],
    root,
  );
  const dir = join(root, name);
  // The release range points at this workspace's tarballs (nothing is published); the rest is the registry's.
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  for (const group of [manifest.dependencies, manifest.devDependencies]) {
    for (const dependency of Object.keys(group)) {
      const folder = FOLDERS[dependency];
      if (folder !== undefined) group[dependency] = `file:${tarball(folder)}`;
    }
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  const t1 = performance.now();
  run('npm', ['install', ...NPM_FLAGS], dir);
  const t2 = performance.now();
  const report = run('npm', ['test'], dir).replaceAll(
    new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'),
    '',
  );
  if (!/Tests\s+8 passed \(8\)/.test(report)) throw new Error(`the generated tests did not pass:\n${report}`);
  const t3 = performance.now();
  return { create: (t1 - t0) / 1000, install: (t2 - t1) / 1000, test: (t3 - t2) / 1000 };
}

/** The generated server's greet tool, about resource and explain prompt, on the SDK alone, with its test tools. */
function bareSdkProject(root: string): string {
  const dir = join(root, 'bare-sdk');
  mkdirSync(join(dir, 'src'), { recursive: true });
  const generated = JSON.parse(readFileSync(join(root, 'warm', 'package.json'), 'utf8'));
  const tools = Object.fromEntries(
    Object.entries(generated.devDependencies as Record<string, string>).filter(
      ([name]) => !name.startsWith('@pier/'),
    ),
  );
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'bare-sdk',
      private: true,
      type: 'module',
      dependencies: { '@modelcontextprotocol/server': '2.4.0', zod: generated.dependencies.zod },
      devDependencies: { '@modelcontextprotocol/client': '2.4.0', ...tools },
    }),
  );
  writeFileSync(
    join(dir, 'src', 'main.ts'),
    `import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'bare-sdk', version: '0.1.0' });
server.registerTool('greet', { description: 'Greets someone by name', inputSchema: { name: z.string().min(1) } }, async ({ name }) => ({
  content: [{ type: 'text', text: \`Hello, \${name}!\` }],
}));
server.registerResource('about', 'about://server', { mimeType: 'text/plain' }, async (uri) => ({
  contents: [{ uri: uri.href, text: 'bare-sdk 0.1.0' }],
}));
server.registerPrompt('explain', { argsSchema: { topic: z.string() } }, ({ topic }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: \`Explain \${topic} in one short paragraph.\` } }],
}));
await server.connect(new StdioServerTransport());
`,
  );
  run('npm', ['install', ...NPM_FLAGS], dir);
  return dir;
}

/** Installed packages (`npm ls --all --parseable`, the project itself left out), all and production only. */
function packages(dir: string): { all: number; production: number } {
  const count = (args: string[]) =>
    new Set(
      run('npm', ['ls', '--all', '--parseable', ...args], dir)
        .split('\n')
        .filter((line) => line.startsWith(join(dir, 'node_modules'))),
    ).size;
  return { all: count([]), production: count(['--omit=dev']) };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const s = (value: number) => `${value.toFixed(1)} s`;

const root = realpathSync(mkdtempSync(join(tmpdir(), 'pier-bench-create-')));
try {
  const before = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  // Warms npm's cache (and npx's copy of create-pier) with the exact packages; not timed.
  scaffoldToGreen(root, 'warm');
  const samples = Array.from({ length: runs }, (_, index) => scaffoldToGreen(root, `run-${index}`));
  const totals = samples.map((sample) => sample.create + sample.install + sample.test);
  const generated = packages(join(root, 'warm'));
  const bare = packages(bareSdkProject(root));
  const after = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const section = `${START}
## create-pier: from \`create-pier --yes\` to a passing test (issue 21)

Written by \`node dist/create-pier.js\` (in bench/, after \`pnpm build\`) on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; Node ${process.version}; load average ${before} before, ${after} after.
Each run: \`npm exec --package=<create-pier tarball> -- create-pier <dir> --yes --no-install\`, the \`@pier/*\` ranges pointed at this workspace's tarballs, \`npm install --prefer-offline\` with npm's cache warmed by one untimed run, then \`npm test\` (8 tests pass). Median of ${runs} runs (min–max).

| phase | median | spread |
| --- | --- | --- |
| create-pier (npm exec, files written) | ${s(median(samples.map((x) => x.create)))} | ${s(Math.min(...samples.map((x) => x.create)))}–${s(Math.max(...samples.map((x) => x.create)))} |
| npm install (warm cache) | ${s(median(samples.map((x) => x.install)))} | ${s(Math.min(...samples.map((x) => x.install)))}–${s(Math.max(...samples.map((x) => x.install)))} |
| npm test (passes) | ${s(median(samples.map((x) => x.test)))} | ${s(Math.min(...samples.map((x) => x.test)))}–${s(Math.max(...samples.map((x) => x.test)))} |
| **total, create-pier to a passing test** | **${s(median(totals))}** | ${s(Math.min(...totals))}–${s(Math.max(...totals))} |

Installed packages (\`npm ls --all --parseable\`), the generated project (stdio, decorators, \`@pier/config\`) against the same server (tool \`greet\`, resource \`about://server\`, prompt \`explain\`) written on the bare SDK with the same test tools (\`@modelcontextprotocol/client\` in place of \`@pier/testing\`), installed the same way:

| project | production | with dev tools |
| --- | --- | --- |
| create-pier --yes | ${generated.production} | ${generated.all} |
| bare SDK v2 | ${bare.production} | ${bare.all} |
| difference | ${generated.production - bare.production} | ${generated.all - bare.all} |
${END}`;
  const current = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '';
  const at = current.indexOf(START);
  const next =
    at >= 0
      ? `${current.slice(0, at)}${section}${current.slice(current.indexOf(END) + END.length)}`
      : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(RESULTS, next);
  process.stdout.write(`${section}\n`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
