// onClose: cleanup that runs once, after the transport stopped serving and before `closed` — in
// process over in-memory stdio, and in child processes over real stdio and the real HTTP transport.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { defineServer, defineTool } from '../declaring/define.js';
import { PierError } from '../errors.js';
import type { PierPlugin, PluginContext } from '../plugins/api.js';
import { deferred, FIXTURES, killChildren, PACKAGE_DIR, runNode, scratchProject } from '../test-helpers.js';
import { type CreateServerOptions, createServer, type PierServer } from './create-server.js';

const TIMEOUT = 20_000;
let logs = '';
const quiet: CreateServerOptions = {
  handleSignals: false,
  logStream: { write: (line: string) => (logs += line) },
};
const servers: PierServer[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  killChildren();
  for (const cleanup of cleanups.splice(0)) cleanup();
  logs = '';
});

let gate = deferred();
let waiting = deferred();

function serverWith(plugins: PierPlugin[] = [], options: CreateServerOptions = {}): PierServer {
  gate = deferred();
  waiting = deferred();
  const wait = defineTool({
    name: 'wait',
    handler: async () => {
      waiting.resolve();
      await gate.promise;
      return 'waited';
    },
  });
  const declaration = defineServer({ name: 'weather', version: '1.0.0', tools: [wait], plugins });
  const server = createServer(declaration, { ...quiet, ...options });
  servers.push(server);
  return server;
}

/** Connects a client over in-memory stdio; `onWrite` sees every chunk the server writes, as it writes it. */
async function listenAndConnect(server: PierServer, onWrite?: (chunk: string) => void): Promise<Client> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  if (onWrite) {
    const write = stdout.write.bind(stdout) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
      onWrite(String(chunk));
      return write(chunk, ...rest);
    }) as typeof stdout.write;
  }
  await server.listen({ stdin, stdout });
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StdioServerTransport(stdout, stdin));
  return client;
}

/** A plugin that adds a close hook recording its name in `seen`. */
function hooked(name: string, seen: string[]): PierPlugin {
  return { name, setup: (ctx) => void ctx.onClose(() => void seen.push(name)) };
}

describe('onClose in process', () => {
  it('runs once an in-flight call is answered, before the state turns closed', async () => {
    const server = serverWith();
    const seen: string[] = [];
    server.onStateChange((state) => seen.push(`state ${state}`));
    let answered = false;
    server.onClose(async () => {
      seen.push(`hook: answered=${answered} state=${server.state}`);
      await new Promise((done) => setTimeout(done, 20));
      seen.push('hook done');
    });
    // Answered means written out by the server, not merely returned by the method.
    const client = await listenAndConnect(server, (chunk) => {
      if (chunk.includes('"waited"')) answered = true;
    });
    const call = client.callTool({ name: 'wait', arguments: {} });
    await waiting.promise;
    const closing = server.close();
    gate.resolve();
    expect((await call).content).toEqual([{ type: 'text', text: 'waited' }]);
    await closing;
    expect(seen).toEqual([
      'state ready',
      'state draining',
      'hook: answered=true state=draining',
      'hook done',
      'state closed',
    ]);
  });

  it('runs the last added first: the application after createServer, then plugins in reverse', async () => {
    const seen: string[] = [];
    const server = serverWith([hooked('pool', seen), hooked('cache', seen)]);
    server.onClose(() => void seen.push('app first'));
    server.onClose(async () => {
      await new Promise((done) => setTimeout(done, 10));
      seen.push('app second');
    });
    await server.close();
    expect(seen).toEqual(['app second', 'app first', 'cache', 'pool']);
  });

  it('runs each hook once, however many times close() is called, and before listen too', async () => {
    let runs = 0;
    const server = serverWith();
    server.onClose(async () => {
      await new Promise((done) => setTimeout(done, 10));
      runs++;
    });
    const first = server.close();
    const second = server.close();
    await Promise.all([first, second, server.close()]);
    await server.close();
    expect(runs).toBe(1);
  });

  it('logs a hook that throws or rejects, message only, and still runs the others', async () => {
    const seen: string[] = [];
    const failing: PierPlugin = {
      name: 'db',
      setup(ctx) {
        ctx.onClose(async () => {
          const error = new Error('pool already gone');
          error.stack = 'SECRET STACK at /srv/db.js:1:1';
          throw error;
        });
      },
    };
    const server = serverWith([hooked('first', seen), failing]);
    server.onClose(function flushStore() {
      throw new Error('disk full');
    });
    await expect(server.close()).resolves.toBeUndefined();
    expect(seen).toEqual(['first']);
    expect(server.state).toBe('closed');
    expect(logs).toMatch(/ ERROR \[weather\] close hook failed error="disk full" hook=flushStore\n/);
    expect(logs).toMatch(/ ERROR \[weather\/db\] close hook failed error="pool already gone"\n/);
    expect(logs).not.toContain('SECRET STACK');
  });

  it('goes on without a hook still running after closeHookTimeoutMs, and skips the ones after it', async () => {
    const seen: string[] = [];
    const server = serverWith([hooked('pool', seen)], { closeHookTimeoutMs: 50 });
    const hanging = deferred();
    server.onClose(function waitForever() {
      return hanging.promise; // settles only once the close is over
    });
    await server.close();
    hanging.resolve();
    expect(server.state).toBe('closed');
    expect(seen).toEqual([]);
    expect(logs).toMatch(
      / WARN {2}\[weather\] close hook still running after the timeout: closing without waiting for it timeoutMs=50 hook=waitForever skipped=1\n/,
    );
  });

  it('removes a hook with the returned function', async () => {
    const seen: string[] = [];
    const server = serverWith();
    const remove = server.onClose(() => void seen.push('removed'));
    server.onClose(() => void seen.push('kept'));
    remove();
    remove();
    await server.close();
    expect(seen).toEqual(['kept']);
  });

  it('takes hooks added while draining, and refuses them once the hooks started', async () => {
    const seen: string[] = [];
    let plugin: PluginContext | undefined;
    const late: PierPlugin = {
      name: 'late',
      setup(ctx) {
        plugin = ctx;
      },
    };
    const server = serverWith([late]);
    let refused: unknown;
    server.onClose(() => {
      try {
        server.onClose(() => void seen.push('too late'));
      } catch (error) {
        refused = error;
      }
    });
    const client = await listenAndConnect(server);
    const call = client.callTool({ name: 'wait', arguments: {} });
    await waiting.promise;
    const closing = server.close();
    expect(server.state).toBe('draining');
    plugin?.onClose(() => void seen.push('added while draining'));
    gate.resolve();
    await call;
    await closing;
    expect(seen).toEqual(['added while draining']);
    expect(refused).toBeInstanceOf(PierError);
    expect(refused).toMatchObject({
      code: 'SERVER_CLOSED',
      message: 'onClose: server "weather" has already run its close hooks; clean up yourself',
    });
    expect(() => plugin?.onClose(() => {})).toThrow(
      expect.objectContaining({ code: 'SERVER_CLOSED', message: expect.stringContaining('plugin "late"') }),
    );
  });

  it('refuses a hook that is not a function', () => {
    const server = serverWith();
    expect(() => server.onClose('flush' as never)).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', message: expect.stringContaining('"flush"') }),
    );
  });
});

const STDIO_SERVER = join(FIXTURES, 'stdio-server.mjs');

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pier-close-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Asserts that each of `starts` begins a line of `output`, in this order. */
function expectInOrder(output: string, starts: readonly string[]): void {
  const lines = output.split('\n');
  const found = starts.map((start) => lines.findIndex((line) => line.startsWith(start)));
  expect(
    found.every((index) => index >= 0),
    output,
  ).toBe(true);
  expect(found, output).toEqual([...found].sort((a, b) => a - b));
}

describe('onClose in a child process, on SIGTERM', () => {
  it(
    'runs an async hook before the process exits with 0',
    async () => {
      const file = join(tempDir(), 'flushed.txt');
      const child = runNode([STDIO_SERVER, `--hook-file=${file}`]);
      await child.waitForStderr('LISTENING');
      child.process.kill('SIGTERM');
      expect(await child.exited).toEqual({ code: 0, signal: null });
      expect(readFileSync(file, 'utf8')).toBe('flushed');
      expectInOrder(child.stderr(), [
        'STATE draining',
        'HOOK STARTED state=draining',
        'HOOK WROTE',
        'STATE closed',
        'EXIT 0',
      ]);
    },
    TIMEOUT,
  );

  it(
    'exits with 1 when a hook fails, after logging its message and running the others',
    async () => {
      const file = join(tempDir(), 'flushed.txt');
      const child = runNode([STDIO_SERVER, `--hook-file=${file}`, '--hook-fail']);
      await child.waitForStderr('LISTENING');
      child.process.kill('SIGTERM');
      expect(await child.exited).toEqual({ code: 1, signal: null });
      expect(child.stderr()).toMatch(/ ERROR \[weather\] close hook failed error="store unreachable"\n/);
      expect(child.stderr()).not.toMatch(/\n\s+at /); // no stack
      expect(readFileSync(file, 'utf8')).toBe('flushed');
    },
    TIMEOUT,
  );
});

describe('onClose over the real HTTP transport', () => {
  const transportDir = resolve(PACKAGE_DIR, '..', 'transport-http');

  it(
    'runs after the call in flight at SIGTERM was answered, before closed, and the exit is 0',
    async () => {
      expect(existsSync(join(transportDir, 'dist', 'index.js')), 'build @pier/transport-http first').toBe(
        true,
      );
      const project = scratchProject({ '@pier/transport-http': transportDir });
      cleanups.push(project.remove);
      const fixture = join(project.dir, 'http-close-hook.mjs');
      copyFileSync(join(FIXTURES, 'http-close-hook.mjs'), fixture);
      const child = runNode([fixture], { cwd: project.dir });
      await child.waitForStderr('LISTENING');
      const url = /LISTENING (\S+)/.exec(child.stderr())?.[1] as string;
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const call = client.callTool({ name: 'slow', arguments: {} });
      await child.waitForStderr('SLOW STARTED');
      child.process.kill('SIGTERM');
      expect((await call).content).toEqual([{ type: 'text', text: 'done slowly' }]);
      expect(await child.exited, child.stderr()).toEqual({ code: 0, signal: null });
      await client.close().catch(() => undefined);

      expectInOrder(child.stderr(), [
        'STATE draining',
        'RESPONSE FINISHED POST /mcp',
        'HOOK STARTED state=draining',
        'HOOK DONE',
        'STATE closed',
        'EXIT 0',
      ]);
    },
    TIMEOUT,
  );
});
