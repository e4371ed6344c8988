// Test helper (not built): serves a plugin's routes on a real node:http server on 127.0.0.1, with a
// PluginContext whose lifecycle the test drives, routed the way DESIGN §3/§4 says transports route:
// exact path (query ignored), GET also answers HEAD, unknown path 404, other methods 405 with Allow.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LifecycleState, LogFields, Logger, PierPlugin, PluginContext } from '@pier/core';
import type { HttpRoute } from '@pier/core/transport';

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields?: LogFields;
}

const ORDER: readonly LifecycleState[] = ['starting', 'ready', 'draining', 'closed'];

/** The lifecycle a server would drive, driven by the test: forward only, listeners told of each move. */
export class TestLifecycle {
  state: LifecycleState = 'starting';
  readonly #listeners = new Set<(state: LifecycleState, previous: LifecycleState) => void>();

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  subscribe(listener: (state: LifecycleState, previous: LifecycleState) => void): () => void {
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

export interface TestServer {
  readonly url: string;
  readonly lifecycle: TestLifecycle;
  readonly routes: readonly HttpRoute[];
  readonly logs: readonly LogLine[];
  /** Requests that reached a plugin route so far. */
  readonly routed: number;
  /** Resolves once `count` requests have reached a plugin route. */
  waitForRouted(count: number): Promise<void>;
  /** Lifecycle to `draining` then `closed`, and the HTTP server closed. Idempotent. */
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Advance the lifecycle to `ready` once listening. Default `true`. */
  readonly ready?: boolean;
  readonly version?: string;
  /** Replaces the logger that records into `logs`. */
  readonly logger?: Logger;
}

/** Sets `plugin` up against a fresh lifecycle and serves its routes on 127.0.0.1, port 0. */
export async function startTestServer(
  plugin: PierPlugin,
  options: TestServerOptions = {},
): Promise<TestServer> {
  const logs: LogLine[] = [];
  const lifecycle = new TestLifecycle((error) =>
    logs.push({ level: 'error', message: `listener: ${String(error)}` }),
  );
  const routes: HttpRoute[] = [];
  const ctx: PluginContext = {
    server: { name: 'test-server', version: options.version ?? '1.2.3' },
    get state() {
      return lifecycle.state;
    },
    onStateChange: (listener) => lifecycle.subscribe(listener),
    addTool() {},
    addResource() {},
    addPrompt() {},
    addRoute(route) {
      if (routes.some((r) => r.method === route.method && r.path === route.path)) {
        throw new Error(`route ${route.method} ${route.path} registered twice`);
      }
      routes.push(route);
    },
    logger: options.logger ?? memoryLogger(logs, plugin.name),
    async notifyResourceUpdated() {},
    // The plugin registers no close hook; this bare host has none to run.
    onClose: () => () => {},
    use() {},
    addMethod() {},
    addCapabilities() {},
    setAuthenticator() {},
    observe() {},
  };
  plugin.setup(ctx);

  let routed = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const route = match(routes, req, res);
    if (route === undefined) return;
    routed += 1;
    for (const waiter of waiters.filter((w) => w.count <= routed)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    // As an HTTP transport serves a route: a web Request in, the Response written back (no body for HEAD).
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers,
    });
    // Called now, as a transport does: the handler sees the lifecycle as it is when the request arrives.
    let answer: Response | Promise<Response>;
    try {
      answer = route.handler(request);
    } catch (error) {
      answer = Promise.reject(error);
    }
    Promise.resolve(answer)
      .then(async (response) => {
        const body = req.method === 'HEAD' ? undefined : Buffer.from(await response.arrayBuffer());
        if (res.destroyed) return;
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(body);
      })
      .catch((error: unknown) => {
        logs.push({ level: 'error', message: `handler rejected: ${String(error)}` });
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  server.listen({ host: '127.0.0.1', port: 0, backlog: 2048 });
  await once(server, 'listening');
  if (options.ready !== false) lifecycle.advance('ready');
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    lifecycle,
    routes,
    logs,
    get routed() {
      return routed;
    },
    waitForRouted(count) {
      if (routed >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    close() {
      closing ??= (async () => {
        lifecycle.advance('draining');
        lifecycle.advance('closed');
        const closed = once(server, 'close');
        server.close();
        server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}

/** The route for this request, or `undefined` after answering 404/405 itself. */
function match(
  routes: readonly HttpRoute[],
  req: IncomingMessage,
  res: ServerResponse,
): HttpRoute | undefined {
  const path = (req.url ?? '/').split('?')[0];
  const onPath = routes.filter((route) => route.path === path);
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const route = onPath.find((r) => r.method === method);
  if (route !== undefined) return route;
  if (onPath.length === 0) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
    return undefined;
  }
  const allow = onPath.flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method]));
  res.writeHead(405, { allow: allow.join(', '), 'content-type': 'application/json' });
  res.end('{"error":"method_not_allowed"}');
  return undefined;
}

function memoryLogger(logs: LogLine[], scope: string): Logger {
  const line =
    (level: LogLine['level']) =>
    (message: string, fields?: LogFields): void => {
      logs.push(fields === undefined ? { level, message } : { level, message, fields });
    };
  return {
    debug: line('debug'),
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    child: (child) => memoryLogger(logs, `${scope}:${child}`),
  };
}
