// Every combination of answers compiles: the generated sources (tests included) are type-checked
// together by the workspace's TypeScript against the workspace's Pier packages.
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Answers, FRAMEWORKS, RUNTIMES, TEMPLATES, TRANSPORTS } from './answers.js';
import { projectFiles } from './generate.js';
import { render } from './render.js';
import { removeTempDirs, tempDir, WORKSPACE } from './test-helpers.js';

afterAll(removeTempDirs);

const COMBINATIONS: Answers[] = TEMPLATES.flatMap((template) =>
  TRANSPORTS.flatMap((transport) =>
    [true, false].flatMap((config) =>
      (transport === 'stdio' ? [false] : [true, false]).map((health) => ({
        name: `${template}-${transport}-${config ? 'config' : 'args'}${health ? '-health' : ''}`,
        transport,
        health,
        config,
        template,
        packageManager: 'npm' as const,
      })),
    ),
  ),
);

/** HTTP projects for each of `choices`, both templates, with health and config and without either. */
function httpCombinations(choices: readonly Pick<Answers, 'framework' | 'runtime'>[]): Answers[] {
  return TEMPLATES.flatMap((template) =>
    choices.flatMap((choice) =>
      [true, false].map((health) => ({
        name: `${template}-${choice.framework ?? choice.runtime}${health ? '-health' : ''}`,
        ...choice,
        transport: 'http' as const,
        health,
        config: health,
        template,
        packageManager: 'npm' as const,
      })),
    ),
  );
}

/** Every framework on Node. */
const FRAMEWORK_COMBINATIONS = httpCombinations(
  FRAMEWORKS.filter((framework) => framework !== 'none').map((framework) => ({ framework })),
);

/**
 * Bun, Deno and Workers projects: their types (Bun's, Deno's, wrangler's) are not in the workspace, so
 * the packaging suite type-checks and runs them where they are installed; here, no marker is left.
 */
const RUNTIME_COMBINATIONS = httpCombinations(
  RUNTIMES.filter((runtime) => runtime !== 'node').map((runtime) => ({ runtime })),
);

/** Where each package a generated project names comes from in the workspace. */
const LINKS: Record<string, string> = {
  '@pier/core': 'packages/core',
  '@pier/config': 'packages/config',
  '@pier/transport-http': 'packages/transport-http',
  '@pier/plugin-health': 'packages/plugin-health',
  '@pier/testing': 'packages/testing',
  zod: 'packages/testing/node_modules/zod',
  vitest: 'node_modules/vitest',
  '@types/node': 'node_modules/@types/node',
  express: 'tests/mounting/node_modules/express',
  '@types/express': 'tests/mounting/node_modules/@types/express',
  fastify: 'tests/mounting/node_modules/fastify',
  hono: 'tests/mounting/node_modules/hono',
  '@hono/node-server': 'tests/mounting/node_modules/@hono/node-server',
};

describe('the templates', () => {
  it(`all ${COMBINATIONS.length + FRAMEWORK_COMBINATIONS.length} Node combinations type-check, tests included`, () => {
    const root = tempDir();
    for (const [name, path] of Object.entries(LINKS)) {
      mkdirSync(dirname(join(root, 'node_modules', name)), { recursive: true });
      symlinkSync(join(WORKSPACE, path), join(root, 'node_modules', name), 'dir');
    }
    for (const answers of [...COMBINATIONS, ...FRAMEWORK_COMBINATIONS]) {
      for (const [path, text] of Object.entries(projectFiles(answers))) {
        mkdirSync(dirname(join(root, answers.name, path)), { recursive: true });
        writeFileSync(join(root, answers.name, path), text);
      }
    }
    // The template's own compiler options, over every project's sources and tests at once.
    const options = JSON.parse(projectFiles(COMBINATIONS[0] as Answers)['tsconfig.json'] as string);
    delete options.compilerOptions.rootDir;
    writeFileSync(
      join(root, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...options.compilerOptions, noEmit: true }, include: ['*/src'] }),
    );
    const tsc = spawnSync(
      process.execPath,
      [join(WORKSPACE, 'node_modules/typescript/bin/tsc'), '-p', root],
      {
        encoding: 'utf8',
        timeout: 90_000,
      },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 120_000);

  it('no marker or placeholder is left in any file of any combination', () => {
    for (const answers of [...COMBINATIONS, ...FRAMEWORK_COMBINATIONS, ...RUNTIME_COMBINATIONS]) {
      for (const [path, text] of Object.entries(projectFiles(answers))) {
        expect(text, `${answers.name}/${path}`).not.toMatch(/\/\/ #(if|else|endif)|__[A-Z_]+__/);
      }
    }
  });
});

describe('render', () => {
  it('keeps the branch whose condition holds, nested and negated', () => {
    const text = [
      'a',
      '// #if x',
      'b',
      '// #if !y',
      'c',
      '// #else',
      'd',
      '// #endif',
      '// #else',
      'e',
      '// #endif',
      'f',
    ];
    expect(render(text.join('\n'), { x: true, y: false }, {})).toBe('a\nb\nc\nf');
    expect(render(text.join('\n'), { x: true, y: true }, {})).toBe('a\nb\nd\nf');
    expect(render(text.join('\n'), { x: false, y: false }, {})).toBe('a\ne\nf');
  });

  it('fails on an unknown condition or an unclosed #if (a template defect)', () => {
    expect(() => render('// #if nope\n// #endif', {}, {})).toThrow('unknown condition "nope"');
    expect(() => render('// #if x', { x: true }, {})).toThrow('#if without #endif');
  });
});
