import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import type { HttpRoute } from '@pier/core/transport';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from './test-host.js';
import {
  ask,
  initializeBody,
  LEGACY_HEADERS,
  LEGACY_VERSION,
  modernRequest,
  StreamReader,
} from './test-http.js';

let server: TestServer | undefined;
afterEach(closeAll);
afterEach(async () => {
  server?.host.gate.release();
  await server?.close();
  server = undefined;
});

/** A drain delay the test ends when it chooses, recording what was asked for. */
function controlledDelay() {
  const asked: number[] = [];
  let end = () => {};
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  return {
    asked,
    end,
    drainDelay: (ms: number) => {
      asked.push(ms);
      return ms === 0 ? Promise.resolve() : ended;
    },
  };
}

function readinessRoute(state: () => string): HttpRoute {
  return {
    method: 'GET',
    path: '/ready',
    handler: () => {
      const ready = state() === 'ready';
      return Response.json({ status: ready ? 'ready' : 'shutting_down' }, { status: ready ? 200 : 503 });
    },
  };
}

async function connectClient(url: string, mode: 'auto' | 'legacy'): Promise<Client> {
  return (await connect(url, { era: mode === 'auto' ? 'auto' : '2025-11-25' })).client;
}

const settledFlag = (promise: Promise<unknown>) => {
  const flag = { settled: false };
  promise.then(
    () => (flag.settled = true),
    () => (flag.settled = true),
  );
  return flag;
};

describe('drain', () => {
  it('fails readiness at once, serves MCP through the drain delay, then closes the listener', async () => {
    const delay = controlledDelay();
    let state = () => 'starting';
    server = await startTestServer({}, { routes: [readinessRoute(() => state())], internals: delay });
    const current = server;
    state = () => current.host.state;
    expect((await ask(server.url, { method: 'GET', path: '/ready' })).status).toBe(200);

    const closing = server.close({ drainDelayMs: 10_000 });
    expect(delay.asked).toEqual([10_000]);
    const ready = await ask(server.url, { method: 'GET', path: '/ready' });
    expect(ready.status).toBe(503);
    expect(ready.headers.connection).toBe('close');
    const { body, headers } = modernRequest('tools/call', {
      name: 'echo',
      arguments: { text: 'during drain' },
    });
    const during = await ask(server.url, { headers, body });
    expect(during.status).toBe(200);
    expect(during.text).toContain('during drain');

    delay.end();
    await closing;
    await expect(ask(server.url, { headers, body })).rejects.toThrow(/ECONNREFUSED/);
  });

  it.each([
    { sessions: false, mode: 'auto' as const },
    { sessions: false, mode: 'legacy' as const },
    { sessions: true, mode: 'legacy' as const },
  ])(
    'lets an in-flight slow tool call finish (sessions: $sessions, client: $mode)',
    async ({ sessions, mode }) => {
      server = await startTestServer({ sessions });
      const client = await connectClient(server.url, mode);
      const call = client.callTool({ name: 'slow', arguments: {} });
      await server.host.gate.whenWaiting();

      const closing = server.close();
      const closed = settledFlag(closing);
      // The listener closes within a loop turn of close(): a connection that reached the kernel's queue
      // just before is reset while connecting, one after is refused. Neither gets its request served.
      await expect(ask(server.url, { headers: LEGACY_HEADERS, body: initializeBody() })).rejects.toThrow(
        /ECONNREFUSED|connect ECONNRESET/,
      );
      expect(closed.settled).toBe(false);

      server.host.gate.release();
      await expect(call).resolves.toMatchObject({ content: [{ type: 'text', text: 'slow done' }] });
      await closing;
      await client.close();
    },
  );

  it('cuts a call still running after shutdownTimeoutMs, and still closes', async () => {
    server = await startTestServer({ shutdownTimeoutMs: 100 });
    const client = await connectClient(server.url, 'auto');
    const call = client.callTool({ name: 'slow', arguments: {} });
    const outcome = call.then(
      () => 'answered',
      () => 'failed',
    );
    await server.host.gate.whenWaiting();
    await server.close();
    expect(await outcome).toBe('failed');
    expect(server.host.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/shutdown timeout/) }),
    );
    await client.close();
  });

  it('ends open session streams cleanly and closes the sessions', async () => {
    server = await startTestServer({ sessions: true });
    const init = await ask(server.url, { headers: LEGACY_HEADERS, body: initializeBody() });
    const id = init.headers['mcp-session-id'] as string;
    const stream = await fetch(server.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': LEGACY_VERSION },
    });
    const reader = new StreamReader(stream);
    const connection = server.host.connections[0];

    await server.close();
    await reader.readToEnd();
    expect(reader.ended).toBe(true);
    expect(connection?.closed).toBe(true);
  });

  it('picks the drain delay: 5 s on SIGTERM, 0 on close, the option, then the close call', async () => {
    const cases = [
      { options: {}, reason: 'SIGTERM' as const, expected: 5_000 },
      { options: {}, reason: 'close' as const, expected: 0 },
      { options: {}, reason: 'SIGINT' as const, expected: 0 },
      { options: { drainDelayMs: 1_500 }, reason: 'close' as const, expected: 1_500 },
      { options: { drainDelayMs: 1_500 }, reason: 'SIGTERM' as const, call: 250, expected: 250 },
    ];
    for (const { options, reason, call, expected } of cases) {
      const delay = controlledDelay();
      const running = await startTestServer(options, { internals: delay });
      const closing = running.running.close({ reason, ...(call !== undefined && { drainDelayMs: call }) });
      delay.end();
      await closing;
      expect(delay.asked).toEqual([expected]);
    }
  });

  it('is idempotent: every close() returns the same promise', async () => {
    server = await startTestServer();
    const first = server.running.close({ reason: 'close' });
    const second = server.running.close({ reason: 'SIGTERM' });
    expect(second).toBe(first);
    await first;
  });

  it('leaves nothing behind: a process that served and closed exits on its own', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/exit-after-close.mjs', import.meta.url));
    const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    expect(existsSync(dist), 'build the package first (tsc -p tsconfig.build.json)').toBe(true);
    const child = spawn(process.execPath, [fixture], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exit = await new Promise<number | string>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('still running after 15 s');
      }, 15_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve(code ?? 'killed');
      });
    });
    expect({ exit, output }).toEqual({ exit: 0, output: 'closed\n' });
  }, 20_000);
});

/** One raw keep-alive connection: sends requests and reads whole responses (Content-Length bodies only). */
async function keptAliveSocket(port: number) {
  const { connect } = await import('node:net');
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let buffered = '';
  let failure: Error | undefined;
  let closed = false;
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    wake();
  });
  socket.on('error', (error) => {
    failure = error;
    wake();
  });
  socket.on('close', () => {
    closed = true;
    wake();
  });
  return {
    socket,
    send: (request: string) => socket.write(request),
    /** The next whole response: its status line and headers, lower-cased, and its body. */
    async response(): Promise<{ head: string; body: string }> {
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end !== -1) {
          const head = buffered.slice(0, end).toLowerCase();
          const length = Number(/content-length: (\d+)/.exec(head)?.[1] ?? 0);
          if (buffered.length >= end + 4 + length) {
            const body = buffered.slice(end + 4, end + 4 + length);
            buffered = buffered.slice(end + 4 + length);
            return { head, body };
          }
        }
        if (failure !== undefined) throw failure;
        if (closed) throw new Error(`connection closed before a whole response: ${JSON.stringify(buffered)}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    closed: () =>
      new Promise<void>((resolve) => (closed ? resolve() : socket.once('close', () => resolve()))),
  };
}

describe('keep-alive connections while draining', () => {
  const pingRoute: HttpRoute = {
    method: 'GET',
    path: '/ping',
    handler: () => new Response('pong', { headers: { 'content-type': 'text/plain' } }),
  };
  const ping = 'GET /ping HTTP/1.1\r\nHost: localhost\r\n\r\n';
  const mcp = modernRequest('tools/list');
  const mcpPost = `POST /mcp HTTP/1.1\r\nHost: localhost\r\n${Object.entries(mcp.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}Content-Length: ${Buffer.byteLength(mcp.body)}\r\n\r\n${mcp.body}`;

  it('sends Connection: close on every response once draining began, on old connections and new', async () => {
    const delay = controlledDelay();
    server = await startTestServer({}, { routes: [pingRoute], internals: delay });
    const old = await keptAliveSocket(server.port);
    old.send(ping);
    expect((await old.response()).head).toMatch(/connection: keep-alive/);

    const closing = server.close({ drainDelayMs: 10_000 });
    old.send(mcpPost);
    const served = await old.response();
    expect(served.head).toMatch(/^http\/1\.1 200 /);
    expect(served.head).toMatch(/connection: close/);
    await old.closed();

    const fresh = await keptAliveSocket(server.port);
    fresh.send(ping);
    expect((await fresh.response()).head).toMatch(/connection: close/);
    await fresh.closed();
    delay.end();
    await closing;
  });

  it('sends Connection: close on a response begun before draining and written after', async () => {
    const delay = controlledDelay();
    let answered = false;
    let answer = () => {};
    const slow: HttpRoute = {
      method: 'GET',
      path: '/slow',
      handler: () => {
        answered = true;
        return new Promise<Response>((resolve) => {
          answer = () => resolve(new Response('ok'));
        });
      },
    };
    server = await startTestServer({}, { routes: [slow], internals: delay });
    const socket = await keptAliveSocket(server.port);
    socket.send('GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await vi.waitFor(() => expect(answered).toBe(true));
    const closing = server.close({ drainDelayMs: 10_000 });
    answer();
    expect((await socket.response()).head).toMatch(/connection: close/);
    await socket.closed();
    delay.end();
    await closing;
  });

  it('answers 503 to a first request sent just after the listener closed on a connection opened before', async () => {
    const delay = controlledDelay();
    server = await startTestServer({}, { routes: [pingRoute], internals: delay });
    const opened = await keptAliveSocket(server.port);
    const closing = server.close({ drainDelayMs: 10_000 });
    delay.end();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(ask(server.url, { method: 'GET', path: '/ping' })).rejects.toThrow(/ECONNREFUSED/);
    opened.send(mcpPost);
    const answer = await opened.response();
    expect(answer.head).toMatch(/^http\/1\.1 503 /);
    expect(answer.head).toMatch(/connection: close/);
    await opened.closed();
    await closing;
  });

  it.each([
    ['an MCP request, answered 503', mcpPost, /^http\/1\.1 503 /],
    ['a plugin route, served', ping, /^http\/1\.1 200 /],
  ])(
    'answers %s that arrived on an idle kept-alive socket as the listener closes, instead of resetting it',
    async (_name, request, status) => {
      const delay = controlledDelay();
      server = await startTestServer({}, { routes: [pingRoute], internals: delay });
      const idle = await keptAliveSocket(server.port);
      idle.send(ping);
      expect((await idle.response()).head).toMatch(/connection: keep-alive/);

      const closing = server.close({ drainDelayMs: 10_000 });
      // The request reaches the server's socket buffer, and in the same tick the drain delay ends: the
      // listener closes before node has read the request.
      idle.send(request);
      delay.end();
      const answer = await idle.response();
      expect(answer.head).toMatch(status);
      expect(answer.head).toMatch(/connection: close/);
      await idle.closed();
      await closing;
    },
  );
});
