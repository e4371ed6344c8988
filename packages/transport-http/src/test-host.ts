// Test helper (excluded from the build): a TransportHost whose engine is a real Pier server's, with its own
// lifecycle (the tests drive it as core would), and tools that let tests hold a call in flight.
import { McpServer } from '@modelcontextprotocol/server';
import {
  createServer,
  defineServer,
  defineTool,
  type LifecycleListener,
  type LifecycleState,
} from '@pier/core';
import type {
  EngineConnection,
  EventBus,
  HttpAuthenticator,
  HttpRoute,
  Logger,
  McpEngine,
  RunningTransport,
} from '@pier/core/transport';
import * as z from 'zod';
import type { HttpListenOptions } from './options.js';
import { createHttpTransport, type TransportInternals } from './server.js';

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields?: Readonly<Record<string, unknown>>;
}

/** Holds `slow` tool calls until released. */
export class Gate {
  /** How many `slow` calls had their signal aborted (the client went away, or cancelled). */
  aborted = 0;
  #waiting: (() => void)[] = [];
  #watchers: { count: number; resolve: () => void }[] = [];

  /** Called by the tool: resolves on {@link release}. */
  wait(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#watchers = this.#watchers.filter((watcher) => {
        if (this.#waiting.length < watcher.count) return true;
        watcher.resolve();
        return false;
      });
    });
  }

  /** Resolves once `count` calls are waiting. */
  whenWaiting(count = 1): Promise<void> {
    if (this.#waiting.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#watchers.push({ count, resolve }));
  }

  release(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}

const ORDER: readonly LifecycleState[] = ['starting', 'ready', 'draining', 'closed'];

/** The lifecycle core would drive, driven by the test: forward only, listeners told of each move. */
export class TestLifecycle {
  state: LifecycleState = 'starting';
  readonly #listeners = new Set<LifecycleListener>();

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  subscribe(listener: LifecycleListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  advance(next: LifecycleState): void {
    const previous = this.state;
    if (ORDER.indexOf(next) <= ORDER.indexOf(previous)) return;
    this.state = next;
    for (const listener of [...this.#listeners]) {
      try {
        listener(next, previous);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}

export interface TestHost {
  readonly info: { readonly name: string; readonly version: string };
  readonly logger: Logger;
  readonly routes: readonly HttpRoute[];
  readonly state: LifecycleState;
  onStateChange(listener: LifecycleListener): () => void;
  readonly engine: McpEngine;
  /** Every connection (2025 session) the transport opened on the engine, oldest first. */
  readonly connections: EngineConnection[];
  readonly events: EventBus;
  readonly authenticator: HttpAuthenticator | undefined;
  readonly lifecycle: TestLifecycle;
  readonly logs: LogLine[];
  readonly gate: Gate;
}

/**
 * A host serving `echo`, `slow` (waits on the gate), `notify` (sends progress, then answers), `header`
 * (reads a request header), `ask` (elicits input from the client) and `reconnect` (closes its SSE stream, as
 * SEP-1699 polling does, then waits on the gate).
 */
export function createTestHost(
  init: { readonly routes?: readonly HttpRoute[]; readonly authenticator?: HttpAuthenticator } = {},
): TestHost {
  const logs: LogLine[] = [];
  const lifecycle = new TestLifecycle((error) => logs.push({ level: 'error', message: String(error) }));
  const gate = new Gate();
  const logger = captureLogger(logs);
  const authenticator = init.authenticator;
  const server = createServer(
    defineServer({
      name: 'test-server',
      version: '1.2.3',
      tools: testTools(gate),
      ...(authenticator !== undefined && {
        plugins: [{ name: 'test-auth', setup: (ctx) => ctx.setAuthenticator(authenticator) }],
      }),
    }),
    { logger, handleSignals: false },
  );
  const connections: EngineConnection[] = [];
  const engine = server.engine;
  return {
    info: { name: 'test-server', version: '1.2.3' },
    logger,
    routes: init.routes ?? [],
    get state() {
      return lifecycle.state;
    },
    onStateChange: (listener) => lifecycle.subscribe(listener),
    engine: {
      handle: (message, inbound) => engine.handle(message, inbound),
      preflight: (message, inbound) => engine.preflight(message, inbound),
      connect: (options) => {
        const connection = engine.connect(options);
        connections.push(connection);
        return connection;
      },
    },
    connections,
    events: server.events,
    authenticator,
    lifecycle,
    logs,
    gate,
  };
}

function testTools(gate: Gate) {
  return [
    defineTool({
      name: 'echo',
      description: 'Echoes its text',
      input: { text: z.string() },
      handler: async ({ text }) => ({ content: [{ type: 'text' as const, text }] }),
    }),
    defineTool({
      name: 'slow',
      description: 'Answers once the test releases it',
      handler: async (_args, ctx) => {
        ctx.signal.addEventListener('abort', () => {
          gate.aborted += 1;
        });
        await gate.wait();
        return 'slow done';
      },
    }),
    defineTool({
      name: 'notify',
      description: 'Sends progress, then answers',
      handler: async (_args, ctx) => {
        await ctx.reportProgress(1, { total: 2 });
        return 'notified';
      },
    }),
    defineTool({
      name: 'header',
      description: 'Reads the X-Pier-Test request header',
      handler: async (_args, ctx) => ctx.header('x-pier-test') ?? 'none',
    }),
    defineTool({
      name: 'ask',
      description: 'Asks the client for a name (elicitation)',
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit({
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        });
        return `hello ${String(answer.content?.name ?? answer.action)}`;
      },
    }),
    defineTool({
      name: 'reconnect',
      description: 'Closes its stream, then answers',
      handler: async (_args, ctx) => {
        ctx.closeStream();
        await gate.wait();
        return 'after reconnect';
      },
    }),
  ];
}

/**
 * The same tools on a bare SDK server, built the SDK's documented way: the reference Pier's answers are held
 * to in tests.
 */
export function buildReferenceServer(gate: Gate = new Gate()): McpServer {
  // Pier's capabilities: logging, and tools whose list does not change.
  const server = new McpServer(
    { name: 'test-server', version: '1.2.3' },
    { capabilities: { logging: {}, tools: { listChanged: false } } },
  );
  server.registerTool(
    'echo',
    { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool('slow', { description: 'Answers once the test releases it' }, async () => {
    await gate.wait();
    return { content: [{ type: 'text', text: 'slow done' }] };
  });
  server.registerTool('notify', { description: 'Sends progress, then answers' }, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined) {
      await ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken, progress: 1, total: 2 },
      });
    }
    return { content: [{ type: 'text', text: 'notified' }] };
  });
  server.registerTool('header', { description: 'Reads the X-Pier-Test request header' }, async (ctx) => ({
    content: [{ type: 'text', text: ctx.http?.req?.headers.get('x-pier-test') ?? 'none' }],
  }));
  server.registerTool('ask', { description: 'Asks the client for a name (elicitation)' }, async (ctx) => {
    const answer = await ctx.mcpReq.elicitInput({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return { content: [{ type: 'text', text: `hello ${String(answer.content?.name ?? answer.action)}` }] };
  });
  server.registerTool('reconnect', { description: 'Closes its stream, then answers' }, async (ctx) => {
    ctx.http?.closeSSE?.();
    await gate.wait();
    return { content: [{ type: 'text', text: 'after reconnect' }] };
  });
  return server;
}

function captureLogger(logs: LogLine[]): Logger {
  const write =
    (level: LogLine['level']) =>
    (message: string, fields?: Readonly<Record<string, unknown>>): void => {
      logs.push(fields === undefined ? { level, message } : { level, message, fields });
      if (process.env.PIER_TEST_LOG)
        process.stderr.write(`[${level}] ${message} ${JSON.stringify(fields ?? {})}\n`);
    };
  const logger: Logger = {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: () => logger,
  };
  return logger;
}

/** A transport on 127.0.0.1 and a free port, for one test. */
export interface TestServer {
  readonly host: TestHost;
  readonly running: RunningTransport;
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  /** Marks the lifecycle draining, as core does, then closes the transport. */
  close(options?: { readonly drainDelayMs?: number }): Promise<void>;
}

export async function startTestServer(
  options: HttpListenOptions = {},
  init: {
    readonly routes?: readonly HttpRoute[];
    readonly internals?: TransportInternals;
    readonly authenticator?: HttpAuthenticator;
  } = {},
): Promise<TestServer> {
  const host = createTestHost({
    ...(init.routes !== undefined && { routes: init.routes }),
    ...(init.authenticator !== undefined && { authenticator: init.authenticator }),
  });
  const running = await createHttpTransport(host, { port: 0, ...options }, init.internals ?? {});
  host.lifecycle.advance('ready');
  const port = running.address.port as number;
  return {
    host,
    running,
    url: running.address.url,
    origin: new URL(running.address.url).origin,
    port,
    async close(closeOptions = {}) {
      host.lifecycle.advance('draining');
      await running.close({ reason: 'close', ...closeOptions });
      host.lifecycle.advance('closed');
    },
  };
}
