// The same decorated source compiled by tsc (not esbuild) in both decorator modes, in a scratch
// project that uses the built package, then run as a stdio server.
import { spawnSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, PACKAGE_DIR, scratchProject } from './test-helpers.js';

const workspace = createRequire(join(PACKAGE_DIR, '..', '..', 'package.json'));
const TSC = workspace.resolve('typescript/bin/tsc');
const TYPES_NODE = dirname(workspace.resolve('@types/node/package.json'));
const TIMEOUT = 60_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Compiles `fixture` with tsc in a scratch project; returns the project and tsc's result. */
function compile(fixture: string, experimentalDecorators: boolean) {
  const project = scratchProject({ '@types/node': TYPES_NODE });
  cleanups.push(project.remove);
  copyFileSync(join(FIXTURES, fixture), join(project.dir, 'server.ts'));
  writeFileSync(join(project.dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(
    join(project.dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: true,
        types: ['node'],
        experimentalDecorators,
        outDir: 'out',
      },
      files: ['server.ts'],
    }),
  );
  const tsc = spawnSync(process.execPath, [TSC, '-p', project.dir], { cwd: project.dir, encoding: 'utf8' });
  return { dir: project.dir, status: tsc.status, output: `${tsc.stdout}${tsc.stderr}` };
}

describe.each([
  ['legacy experimentalDecorators', true],
  ['TC39 standard decorators', false],
])('compiled by tsc with %s', (_, experimentalDecorators) => {
  it(
    'registers every member and serves them',
    async () => {
      const { dir, status, output } = compile('decorated-server.ts', experimentalDecorators);
      expect(output).toBe('');
      expect(status).toBe(0);

      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(dir, 'out', 'server.js')],
        cwd: dir,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'pier-test', version: '1.0.0' });
      await client.connect(transport);
      cleanups.push(() => client.close());

      expect(client.getServerVersion()).toMatchObject({ name: 'decorated', version: '2.0.0-rc.1' });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['greet', 'measure']);
      expect((await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).content).toEqual([
        { type: 'text', text: 'Hello, Ada' },
      ]);
      expect((await client.callTool({ name: 'measure', arguments: {} })).structuredContent).toEqual({
        length: 5,
      });
      expect((await client.readResource({ uri: 'config://greeting' })).contents).toEqual([
        { uri: 'config://greeting', mimeType: 'text/plain', text: 'Hello' },
      ]);
      const prompt = await client.getPrompt({ name: 'ask', arguments: { topic: 'tides' } });
      expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello! Tell me about tides.' });
    },
    TIMEOUT,
  );

  it(
    'refuses a method whose argument does not match its input schema',
    () => {
      const { status, output } = compile('decorated-mismatch.ts', experimentalDecorators);
      expect(status).not.toBe(0);
      expect(output).toContain('server.ts(7,4): error TS1241');
      expect(output).toContain("Type 'string' is not assignable to type 'number'");
    },
    TIMEOUT,
  );
});
