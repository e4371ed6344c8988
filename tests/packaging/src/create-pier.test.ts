// 5. `npm create pier`: the packed create-pier generates a project, which installs from the packed
// Pier packages (and the registry's tools), passes its own tests, builds, and serves MCP on `npm start`.
import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { killAll, NPM_FLAGS, runOk, userEnv } from './scratch.js';

let scratch: string | undefined;
let project: string;

beforeAll(async () => {
  // A bare folder, as a user's home would be: no package.json above the new project.
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'pier-create-pier-')));
  const tarballs = inject('tarballs');
  // What `npm create pier@latest my-server` runs: create-pier's bin, from the package.
  await runOk(
    'npm',
    [
      'exec',
      '--yes',
      `--package=${tarballs['create-pier']}`,
      '--',
      'create-pier',
      'my-server',
      '--yes',
      '--no-install',
    ],
    { cwd: scratch, env: userEnv(), timeoutMs: 60_000 },
  );
  project = join(scratch, 'my-server');
  // The project names @pier/* at the released version; here they come from this run's tarballs.
  await runOk('npm', ['install', tarballs.core, tarballs.config, tarballs.testing, ...NPM_FLAGS], {
    cwd: project,
    env: userEnv(),
    timeoutMs: 120_000,
  });
}, 180_000);

afterAll(() => {
  killAll();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe('a project from create-pier --yes', () => {
  it('installs only the packages it names', async () => {
    const { stdout } = await runOk('npm', ['ls', '--depth=0', '--json'], { cwd: project, env: userEnv() });
    expect(Object.keys((JSON.parse(stdout) as { dependencies: object }).dependencies).sort()).toEqual([
      '@pier/config',
      '@pier/core',
      '@pier/testing',
      '@types/node',
      'tsx',
      'typescript',
      'vite',
      'vitest',
      'zod',
    ]);
  });

  it('npm test passes before a line is changed', async () => {
    const { stdout } = await runOk('npm', ['test'], { cwd: project, env: userEnv(), timeoutMs: 60_000 });
    // vitest colours its report (FORCE_COLOR reaches it from this run): read it without the colours.
    const report = stdout.replaceAll(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
    expect(report).toMatch(/Tests\s+8 passed \(8\)/);
  });

  it('npm run build compiles to dist/', async () => {
    await runOk('npm', ['run', 'build'], { cwd: project, env: userEnv(), timeoutMs: 60_000 });
    expect(
      readdirSync(join(project, 'dist'))
        .filter((file) => file.endsWith('.js'))
        .sort(),
    ).toEqual(['config.js', 'main.js', 'server.js']);
  });

  it('npm start serves MCP over stdio: the SDK client lists and calls the tool', async () => {
    const client = new Client({ name: 'packaging', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: 'npm',
      args: ['start'],
      cwd: project,
      env: userEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    try {
      await client.connect(transport, { timeout: 30_000 });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['greet']);
      const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
      expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    } finally {
      await client.close();
    }
  }, 60_000);
});
