// listen({ transport: 'streamable-http' }) loads @pier/transport-http for real, in scratch projects
// outside the workspace: not installed, installed beside core (flat layout), installed only for the
// application (linked layout). The installed package here is a stand-in that records what core hands it.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, killChildren, runNode, scratchProject } from '../test-helpers.js';

const TIMEOUT = 20_000;
const cleanups: (() => void)[] = [];
afterEach(() => {
  killChildren();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

// Implements the transport contract as documented in transports/host.ts, and reports each call on stdout.
const STAND_IN = `
const report = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
export function httpTransport(options) {
  return { name: 'streamable-http', start: (host) => start(host, options) };
}
async function start(host, options) {
  const states = [];
  host.onStateChange((state) => states.push(state));
  report({
    started: {
      info: host.info,
      routes: host.routes.map((route) => route.method + ' ' + route.path),
      state: host.state,
      options,
      engine: typeof host.engine.handle,
    },
  });
  return {
    address: { transport: 'streamable-http', url: 'http://127.0.0.1:4321/mcp', host: '127.0.0.1', port: 4321 },
    async close(closeOptions) {
      report({ closed: { closeOptions, state: host.state, states } });
    },
  };
}
`;

function writeStandIn(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: '@pier/transport-http', version: '0.1.0', type: 'module', exports: './index.js' }),
  );
  writeFileSync(join(dir, 'index.js'), STAND_IN);
}

async function run(dir: string, args: readonly string[] = []): Promise<Record<string, unknown>[]> {
  cpSync(join(FIXTURES, 'listen-http.mjs'), join(dir, 'listen-http.mjs'));
  const child = runNode([join(dir, 'listen-http.mjs'), ...args], { cwd: dir });
  const { code } = await child.exited;
  expect(code, child.stderr()).toBe(0);
  return child
    .stdout()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('listen with streamable-http', () => {
  it(
    'rejects with TRANSPORT_NOT_INSTALLED, naming the package, when it is not installed',
    async () => {
      // Core copied, so nothing above the project (the workspace links the real package) is in reach.
      const project = scratchProject({}, { copyCore: true });
      cleanups.push(project.remove);
      const [result] = await run(project.dir);
      expect(result).toEqual({
        error: {
          isPierError: true,
          code: 'TRANSPORT_NOT_INSTALLED',
          message: expect.stringContaining('install @pier/transport-http'),
        },
      });
    },
    TIMEOUT,
  );

  it.each([
    // npm's flat node_modules (and pnpm, which links an installed optional peer beside core): core
    // itself resolves the package for the 'streamable-http' shortcut.
    ['the shortcut, installed beside core', []],
    // The application imports httpTransport and hands it to listen: nothing for core to find.
    ['the application’s own httpTransport(options)', ['--import']],
  ] as const)(
    'hands the transport the host and options, resolves with its address, and closes it (%s)',
    async (_, args) => {
      const project = scratchProject({}, { copyCore: true });
      cleanups.push(project.remove);
      writeStandIn(join(project.dir, 'node_modules', '@pier', 'transport-http'));
      const [started, listened, closed, after] = await run(project.dir, args);
      expect(started).toEqual({
        started: {
          info: { name: 'weather', version: '1.0.0' },
          routes: ['GET /health'],
          state: 'starting',
          options: { host: '127.0.0.1', port: 0, sessions: true },
          engine: 'function',
        },
      });
      expect(listened).toEqual({
        address: {
          transport: 'streamable-http',
          url: 'http://127.0.0.1:4321/mcp',
          host: '127.0.0.1',
          port: 4321,
        },
        state: 'ready',
      });
      expect(closed).toEqual({
        closed: {
          closeOptions: { reason: 'close', drainDelayMs: 25 },
          state: 'draining',
          states: ['ready', 'draining'],
        },
      });
      expect(after).toEqual({ state: 'closed' });
    },
    TIMEOUT,
  );
});
