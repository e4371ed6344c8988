// Scenarios 3 and 4: core + transport-http + plugin-health (+ zod), installed with pnpm (strict,
// isolated layout) and with npm; the same HTTP server written in plain JavaScript and in TypeScript
// compiled by tsc in both decorator modes. This is the one home of the tsc decorator matrix (legacy
// and TC39, against the published types): a method that does not match its schema must not compile.
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client, type ClientOptions, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type Finished,
  installedPackages,
  killAll,
  NPM_FLAGS,
  nodeModulesBytes,
  PNPM,
  run,
  runOk,
  type Scratch,
  scratchProject,
  startProcess,
  TSC,
  TYPE_ROOTS,
  topLevel,
  userEnv,
  ZOD,
} from './scratch.js';

type Installer = 'npm' | 'pnpm';
type DecoratorMode = 'legacy' | 'standard';
const INSTALLERS: readonly Installer[] = ['pnpm', 'npm'];
const MODES: readonly DecoratorMode[] = ['legacy', 'standard'];
const PIER = ['@pier/core', '@pier/plugin-health', '@pier/transport-http'];

const VARIANTS: readonly [string, string, DecoratorMode | undefined][] = [
  ['plain JavaScript, defineServer and no decorators', 'server.js', undefined],
  ['TypeScript compiled by tsc with experimentalDecorators', 'out/legacy/server.js', 'legacy'],
  ['TypeScript compiled by tsc with standard decorators', 'out/standard/server.js', 'standard'],
];

const ERAS: readonly [string, ClientOptions][] = [
  ['2025', {}],
  ['2026-07-28', { versionNegotiation: { mode: 'auto' } }],
];

interface Installed {
  readonly project: Scratch;
  /** tsc on fixtures/http-stack/server.ts, which must compile cleanly. */
  readonly compiled: Record<DecoratorMode, Finished>;
  /** tsc on fixtures/http-stack/mismatch.ts, which must not compile. */
  readonly mismatch: Record<DecoratorMode, Finished>;
}
const installed = new Map<Installer, Installed>();

beforeAll(async () => {
  // Both settle before a failure is reported, so that afterAll never removes a folder still in use.
  const settled = await Promise.allSettled(INSTALLERS.map(prepare));
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
});
afterEach(killAll);
afterAll(() => {
  for (const { project } of installed.values()) project.remove();
});

async function prepare(installer: Installer): Promise<void> {
  const tarballs = inject('tarballs');
  const files = [tarballs.core, tarballs['transport-http'], tarballs['plugin-health']];
  const env = userEnv();
  let project: Scratch;
  if (installer === 'npm') {
    project = scratchProject('http-stack');
    installed.set(installer, {
      project,
      compiled: {} as Installed['compiled'],
      mismatch: {} as Installed['mismatch'],
    });
    await runOk('npm', ['install', ...files, ZOD, ...NPM_FLAGS], {
      cwd: project.dir,
      env,
      timeoutMs: 120_000,
    });
  } else {
    const dependencies = {
      '@pier/core': `file:${tarballs.core}`,
      '@pier/plugin-health': `file:${tarballs['plugin-health']}`,
      '@pier/transport-http': `file:${tarballs['transport-http']}`,
      zod: ZOD.slice('zod@'.length),
    };
    project = scratchProject('http-stack', { dependencies });
    installed.set(installer, {
      project,
      compiled: {} as Installed['compiled'],
      mismatch: {} as Installed['mismatch'],
    });
    // Outside any workspace; a fresh project has no lockfile to freeze (CI=true would ask for one).
    await runOk(
      'npx',
      [
        ...PNPM,
        'install',
        '--ignore-workspace',
        '--no-frozen-lockfile',
        '--prefer-offline',
        '--config.node-linker=isolated',
      ],
      { cwd: project.dir, env, timeoutMs: 120_000 },
    );
  }
  const { compiled, mismatch } = installed.get(installer)!;
  for (const mode of MODES) {
    compiled[mode] = await compile(project.dir, mode, 'server');
    mismatch[mode] = await compile(project.dir, mode, 'mismatch');
  }
}

/**
 * tsc from the workspace, with the user's usual strict settings; Node's types from the workspace too.
 * `server.ts` is emitted to `out/<mode>/`; `mismatch.ts` is only checked.
 */
function compile(dir: string, mode: DecoratorMode, source: 'server' | 'mismatch'): Promise<Finished> {
  const tsconfig = `tsconfig.${source}.${mode}.json`;
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [TYPE_ROOTS],
    experimentalDecorators: mode === 'legacy',
    ...(source === 'server' ? { outDir: `out/${mode}` } : { noEmit: true }),
  };
  writeFileSync(join(dir, tsconfig), JSON.stringify({ compilerOptions, files: [`${source}.ts`] }, null, 2));
  return run(process.execPath, [TSC, '-p', tsconfig], { cwd: dir, env: userEnv(), timeoutMs: 120_000 });
}

function dirOf(installer: Installer): string {
  const entry = installed.get(installer);
  if (!entry) throw new Error(`the ${installer} project was not prepared`);
  return entry.project.dir;
}

/** Where `from` (a package folder) resolves `name` to, following links as Node does. */
function resolvedFrom(from: string, name: string): string {
  return realpathSync(
    createRequire(join(realpathSync(from), 'package.json')).resolve(`${name}/package.json`),
  );
}

describe('installed with pnpm, strict isolated layout', () => {
  it('links only the direct dependencies at the top, and core sees the transport through its optional peer', async () => {
    const dir = dirOf('pnpm');
    expect(topLevel(dir)).toEqual([...PIER, 'zod']);
    const nodeModules = join(dir, 'node_modules');
    const transport = realpathSync(join(nodeModules, '@pier/transport-http'));
    const core = realpathSync(join(nodeModules, '@pier/core'));
    // pnpm links a peer into the package's own folder of its virtual store only when it is declared:
    // without core's optional peer, core would depend on being able to walk up to the application.
    const besideCore = join(dirname(core), 'transport-http');
    expect(existsSync(besideCore) && realpathSync(besideCore)).toBe(transport);
    expect(resolvedFrom(core, '@pier/transport-http')).toBe(join(transport, 'package.json'));
    // One core for everyone: the plugin's and the transport's peer are the application's core.
    expect(resolvedFrom(transport, '@pier/core')).toBe(join(core, 'package.json'));
    expect(resolvedFrom(join(nodeModules, '@pier/plugin-health'), '@pier/core')).toBe(
      join(core, 'package.json'),
    );
    console.info(
      `[packaging] core + transport-http + plugin-health (pnpm): ${await nodeModulesBytes(dir)} bytes`,
    );
  });
});

describe('installed with npm', () => {
  it('installs the three packages, the SDK server and zod', async () => {
    const dir = dirOf('npm');
    const packages = await installedPackages(dir);
    expect(packages).toEqual(['@modelcontextprotocol/core', '@modelcontextprotocol/server', ...PIER, 'zod']);
    console.info(
      `[packaging] core + transport-http + plugin-health (npm): ${packages.length} packages, ${await nodeModulesBytes(dir)} bytes`,
    );
  });
});

describe.each(INSTALLERS)('core + transport-http + plugin-health, installed with %s', (installer) => {
  it.each(VARIANTS)('%s: answers /health/ready and a real client’s tools/call', async (_, entry, mode) => {
    const dir = dirOf(installer);
    if (mode) {
      const tsc = installed.get(installer)!.compiled[mode];
      expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
      expect(tsc.code).toBe(0);
    }

    const server = startProcess(process.execPath, [entry], { cwd: dir });
    const address = JSON.parse(await server.firstLine()) as { url: string; port: number };
    expect(address).toMatchObject({ transport: 'streamable-http', host: '127.0.0.1' });
    expect(address.url).toBe(`http://127.0.0.1:${address.port}/mcp`);

    const ready = await fetch(new URL('/health/ready', address.url));
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'degraded',
      checks: {
        store: { status: 'healthy', critical: true },
        cache: { status: 'degraded', critical: false },
      },
    });
    expect((await fetch(new URL('/health/live', address.url))).status).toBe(200);

    for (const [era, options] of ERAS) {
      const client = new Client({ name: `packaging-test-${era}`, version: '1.0.0' }, options);
      await client.connect(new StreamableHTTPClientTransport(new URL(address.url)));
      try {
        expect(client.getServerVersion()).toMatchObject({ name: 'weather', version: '1.0.0' });
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(['forecast', 'conditions']);
        const result = await client.callTool({ name: 'forecast', arguments: { city: 'Lisbon' } });
        expect(result.content).toEqual([{ type: 'text', text: 'Sunny in Lisbon, 21°C' }]);
        expect((await client.callTool({ name: 'conditions', arguments: {} })).structuredContent).toEqual({
          temperature: 21,
          units: 'C',
        });
        expect((await client.readResource({ uri: 'weather://units' })).contents).toEqual([
          { uri: 'weather://units', mimeType: 'text/plain', text: 'C' },
        ]);
        const prompt = await client.getPrompt({ name: 'ask', arguments: { city: 'Lisbon' } });
        expect(prompt.messages[0]?.content).toEqual({
          type: 'text',
          text: 'What is the weather in Lisbon? Answer in °C.',
        });
      } finally {
        await client.close();
      }
    }

    server.process.kill('SIGINT');
    const exit = await server.exited;
    expect(exit.code).toBe(0);
    expect(exit.stdout).toBe(`${JSON.stringify(address)}\n`);
    expect(exit.stderr).toContain('[weather] closed');
  });
});

describe.each(INSTALLERS)(
  'decorators compiled by tsc against the packages installed with %s',
  (installer) => {
    it.each(MODES)('%s: refuses a method whose argument does not match its input schema', (mode) => {
      const tsc = installed.get(installer)!.mismatch[mode];
      const output = `${tsc.stdout}${tsc.stderr}`;
      expect(tsc.code).not.toBe(0);
      expect(output).toContain('mismatch.ts(7,4): error TS1241');
      expect(output).toContain("Type 'string' is not assignable to type 'number'");
    });
  },
);
