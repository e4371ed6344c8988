// A real stdio server (the built package) in a child process, driven by the SDK's stdio client and
// by hand, with signals. Every child is bounded by the test timeout and killed afterwards.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { type Child, ERAS, FIXTURES, killChildren, PACKAGE_DIR, runNode } from '../test-helpers.js';

const SERVER = join(FIXTURES, 'stdio-server.mjs');
const TIMEOUT = 20_000;

let transports: StdioClientTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.map((transport) => transport.close()));
  transports = [];
  killChildren();
});

describe('a stdio server driven by the SDK stdio client', () => {
  it.each(['modern', 'legacy'] as const)(
    'lists tools, calls one, reports a tool error, and exits 0 when the client closes (%s)',
    async (era) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [SERVER],
        cwd: PACKAGE_DIR,
        stderr: 'pipe',
      });
      transports.push(transport);
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const errors: Error[] = [];
      const client = new Client({ name: 'pier-test', version: '1.0.0' }, ERAS[era]);
      client.onerror = (error) => errors.push(error);
      await client.connect(transport);
      expect(client.getProtocolEra()).toBe(era);

      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['forecast', 'explode', 'slow', 'release']);
      const ok = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
      expect(ok.content).toEqual([{ type: 'text', text: 'Sunny in Oslo' }]);
      const failed = await client.callTool({ name: 'explode', arguments: {} });
      expect(failed).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'the weather station is on fire' }],
      });
      expect(JSON.stringify(failed)).not.toMatch(/at .*\.m?js:\d+/); // no stack

      const exited = new Promise<void>((resolve) => {
        transport.onclose = resolve;
      });
      await client.close();
      await exited;
      // Anything but protocol bytes on stdout would have surfaced as a client parse error.
      expect(errors).toEqual([]);
      expect(stderr).toContain('STATE ready');
      expect(stderr).toContain('stdin ended: closing');
      expect(stderr).toContain('STATE closed');
    },
    TIMEOUT,
  );
});

/** Speaks 2025-era JSON-RPC to a child by hand. */
function handshake(child: Child): void {
  send(child, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  send(child, { jsonrpc: '2.0', method: 'notifications/initialized' });
}

function send(child: Child, message: object): void {
  child.process.stdin?.write(`${JSON.stringify(message)}\n`);
}

function call(child: Child, id: number, name: string): void {
  send(child, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
}

function messages(child: Child): { id?: number; result?: { content?: unknown } }[] {
  return child
    .stdout()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

async function waitForAnswer(child: Child, id: number): Promise<void> {
  while (!messages(child).some((message) => message.id === id)) {
    await new Promise((resolve) => child.process.stdout?.once('data', resolve));
  }
}

describe('stdout', () => {
  it(
    'carries only JSON-RPC messages, while logs go to stderr',
    async () => {
      const child = runNode([SERVER]);
      handshake(child);
      call(child, 2, 'forecast');
      call(child, 3, 'explode');
      await waitForAnswer(child, 3);
      child.process.stdin?.end();
      expect(await child.exited).toEqual({ code: 0, signal: null });
      const lines = child.stdout().split('\n');
      expect(lines.pop()).toBe('');
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
      expect(lines).toHaveLength(3);
      expect(child.stderr()).toMatch(/WARN {2}\[weather\/tool:explode\] tool failed/);
    },
    TIMEOUT,
  );
});

describe('signals', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s closes gracefully and exits 0',
    async (signal) => {
      const child = runNode([SERVER]);
      await child.waitForStderr('LISTENING');
      child.process.kill(signal);
      expect(await child.exited).toEqual({ code: 0, signal: null });
      const stderr = child.stderr();
      expect(stderr).toContain(`${signal} received: closing`);
      expect(stderr.indexOf('STATE draining')).toBeLessThan(stderr.indexOf('STATE closed'));
      expect(stderr).toContain(`closing reason=${signal}`);
      expect(stderr).toContain('EXIT 0');
    },
    TIMEOUT,
  );

  it(
    'SIGTERM waits for a running call to be answered',
    async () => {
      const child = runNode([SERVER]);
      handshake(child);
      call(child, 2, 'slow');
      await child.waitForStderr('SLOW STARTED');
      child.process.kill('SIGTERM');
      await child.waitForStderr('STATE draining');
      call(child, 3, 'release');
      expect(await child.exited).toEqual({ code: 0, signal: null });
      const slow = messages(child).find((message) => message.id === 2);
      expect(slow?.result?.content).toEqual([{ type: 'text', text: 'done slowly' }]);
    },
    TIMEOUT,
  );

  it(
    'a second signal exits at once with code 1',
    async () => {
      const child = runNode([SERVER]);
      handshake(child);
      call(child, 2, 'slow');
      await child.waitForStderr('SLOW STARTED');
      child.process.kill('SIGTERM');
      await child.waitForStderr('STATE draining');
      child.process.kill('SIGINT');
      expect(await child.exited).toEqual({ code: 1, signal: null });
      expect(child.stderr()).toContain('second SIGINT: exiting without waiting for the drain');
      expect(messages(child).some((message) => message.id === 2)).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'are left to Node with handleSignals: false',
    async () => {
      const child = runNode([SERVER, '--no-signals']);
      await child.waitForStderr('LISTENING');
      child.process.kill('SIGTERM');
      expect(await child.exited).toEqual({ code: null, signal: 'SIGTERM' });
      expect(child.stderr()).not.toContain('STATE draining');
    },
    TIMEOUT,
  );
});
