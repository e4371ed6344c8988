import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type {
  HttpListenOptions,
  HttpRoute,
  RunningTransport,
  TransportCloseOptions,
  TransportHost,
} from '@pier/core';
import { continueOrRefuse } from './body.js';
import { delay, ExchangeTracker } from './drain.js';
import { HttpTransportError } from './errors.js';
import { clip, JSONRPC, sendJsonError } from './json-errors.js';
import { createMcpEndpoint } from './mcp-endpoint.js';
import { DEFAULTS, resolveHttpOptions } from './options.js';
import { createRouter, pathOf } from './routing.js';
import { createSecurity } from './security.js';
import { type Clock, systemClock } from './sessions.js';

/**
 * How long idle connections stay open once the listener closed, for requests already on their way. Long
 * enough for a client on the same machine or network, short next to any shutdown budget.
 */
const IDLE_CONNECTION_GRACE_MS = 250;

/** Seams for tests; not part of the public API. */
export interface TransportInternals {
  readonly clock?: Clock;
  /** Waits out the drain delay (tests end it when they choose). */
  readonly drainDelay?: (ms: number) => Promise<void>;
}

/**
 * Starts MCP streamable HTTP for `host` on node:http and resolves once it listens. This is what
 * `listen({ transport: 'streamable-http' })` in `@pier/core` calls; its `close()` drains: MCP keeps being
 * served for the drain delay, then the listener closes, requests in flight get up to the shutdown timeout,
 * streams are ended and the remaining sockets destroyed.
 *
 * @example
 * ```ts
 * const running = await startHttpTransport(host, { port: 0 });
 * console.error(running.address.url); // http://127.0.0.1:40123/mcp
 * await running.close({ reason: 'close' });
 * ```
 */
export function startHttpTransport(
  host: TransportHost,
  options: HttpListenOptions,
): Promise<RunningTransport> {
  return createHttpTransport(host, options, {});
}

/** {@link startHttpTransport} with injectable internals (a fake clock in tests). */
export async function createHttpTransport(
  host: TransportHost,
  rawOptions: HttpListenOptions,
  internals: TransportInternals,
): Promise<RunningTransport> {
  const logger = host.logger;
  const options = resolveHttpOptions(rawOptions, (message) => logger.warn(message));
  const clock = internals.clock ?? systemClock;
  const mcpMethods = options.sessions ? ['GET', 'POST', 'DELETE'] : ['POST'];
  warnAboutShadowedEndpoint(host.routes, options.path, mcpMethods, logger);
  const router = createRouter(
    host.routes,
    { path: options.path, methods: mcpMethods },
    options.cors ? ['OPTIONS'] : [],
  );
  const security = createSecurity(options);
  const tracker = new ExchangeTracker();
  let origin = `http://${urlHost(options.host)}:${options.port}`;
  const endpoint = createMcpEndpoint({ host, options, clock, tracker, logger, origin: () => origin });
  /** `serving` until the drain delay is over; then MCP requests get 503 while the rest finishes. */
  let phase: 'serving' | 'refusing' = 'serving';
  let draining = false;

  const routeFailed = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    logger.error('HTTP route failed', {
      method: req.method,
      path: clip(req.url ?? ''),
      error: error instanceof Error ? error.message : String(error),
    });
    sendJsonError(res, 500, JSONRPC.internalError, 'Internal Server Error');
  };
  const runRoute = (handler: HttpRoute['handler'], req: IncomingMessage, res: ServerResponse): void => {
    try {
      const result = handler(req, res);
      // A closure only for a handler that returned a promise: a synchronous answer allocates none.
      if (result !== undefined) result.then(undefined, (error: unknown) => routeFailed(req, res, error));
    } catch (error) {
      routeFailed(req, res, error);
    }
  };

  /** Responses whose headers are not sent yet: they get `Connection: close` when draining begins. */
  const unanswered = new Set<ServerResponse>();
  /** One listener for every response (no closure per request); `close` is emitted once per response. */
  const forgetUnanswered = function (this: ServerResponse): void {
    unanswered.delete(this);
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const exchange = tracker.begin(res);
    if (draining) {
      res.setHeader('connection', 'close');
    } else {
      unanswered.add(res);
      res.on('close', forgetUnanswered);
    }
    if (req.headers.host === undefined && req.httpVersion === '1.1') {
      sendJsonError(res, 400, JSONRPC.serverError, 'Bad Request: missing Host header');
      return;
    }
    const refusal = security.refusal(req);
    if (refusal !== undefined) {
      sendJsonError(res, 403, JSONRPC.serverError, refusal);
      return;
    }
    const target = req.url ?? '';
    const path = pathOf(target);
    if (path === undefined) {
      sendJsonError(
        res,
        400,
        JSONRPC.serverError,
        `Bad Request: unsupported request target "${clip(target)}"`,
      );
      return;
    }
    security.applyCors(req, res);
    const method = req.method ?? 'GET';
    if (method === 'OPTIONS' && options.cors !== undefined) {
      const allow = router.allowFor(path);
      if (allow !== undefined && security.preflight(req, res, allow)) return;
    }
    const match = router.match(method, path);
    switch (match.kind) {
      case 'route':
        runRoute(match.handler, req, res);
        return;
      case 'mcp':
        if (phase !== 'serving') {
          sendJsonError(res, 503, JSONRPC.serverError, 'Service Unavailable: the server is shutting down', {
            headers: { 'retry-after': '1' },
          });
          return;
        }
        endpoint.handle(req, res, exchange);
        return;
      case 'method-not-allowed':
        sendJsonError(
          res,
          405,
          JSONRPC.serverError,
          `Method Not Allowed: ${clip(method, 20)} ${clip(path)}`,
          {
            headers: { allow: match.allow },
          },
        );
        return;
      case 'not-found':
        sendJsonError(res, 404, JSONRPC.serverError, `Not Found: ${clip(path)}`);
        return;
    }
  };

  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      // Node looks for timed-out requests at this pace (30 s by default, which would make a 10 s header
      // timeout take up to 40 s).
      connectionsCheckingInterval: Math.min(1_000, Math.max(100, Math.floor(options.headersTimeoutMs / 4))),
      // A missing Host is answered by onRequest, with a JSON body like every other refusal.
      requireHostHeader: false,
    },
    onRequest,
  );
  // No idle-socket timeout: it would cut quiet but legitimate SSE streams.
  server.timeout = 0;
  server.on('connection', (socket: Socket) => tracker.addSocket(socket));
  server.on('clientError', answerClientError);
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    // Only the MCP endpoint's limit is known here; plugin routes read their bodies as they see fit.
    if (req.method === 'POST' && pathOf(req.url ?? '') === options.path) {
      continueOrRefuse(req, res, options.maxBodyBytes);
    } else {
      res.writeContinue();
    }
    onRequest(req, res);
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: options.host, port: options.port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new HttpTransportError(
      'HTTP_LISTEN_FAILED',
      [`cannot listen on ${urlHost(options.host)}:${options.port}: ${code} (${(error as Error).message})`],
      { cause: error },
    );
  }
  server.on('error', (error) => logger.error('HTTP server error', { error: error.message }));
  const port = (server.address() as AddressInfo).port;
  origin = `http://${urlHost(options.host)}:${port}`;
  const url = `${origin}${options.path}`;
  endpoint.start();
  // Core logs the one `listening transport=streamable-http url=…` line (it does for stdio too); this
  // only adds what core cannot know, at debug level.
  logger.debug('HTTP transport started', { mode: options.sessions ? 'sessionful' : 'stateless' });

  let closing: Promise<void> | undefined;
  const drainAndClose = async ({ reason, drainDelayMs }: TransportCloseOptions): Promise<void> => {
    draining = true;
    // Responses still to be written close their connection too, so that clients stop reusing sockets.
    for (const res of unanswered) if (!res.headersSent) res.setHeader('connection', 'close');
    unanswered.clear();
    const delayMs =
      drainDelayMs ?? options.drainDelayMs ?? (reason === 'SIGTERM' ? DEFAULTS.drainDelayMsOnSigterm : 0);
    logger.info('HTTP transport draining', { reason, drainDelayMs: delayMs, inFlight: tracker.inFlight });
    await (internals.drainDelay ?? delay)(delayMs);
    phase = 'refusing';
    // Closing the listening socket resets every connection still in the kernel's accept queue: the client
    // had completed its handshake and may have written its request, so it cannot tell a refusal from a
    // lost request. The timer above fires before this loop turn's poll phase; waiting for the check phase
    // lets that poll accept whatever is queued (those requests are read and answered 503), which leaves
    // only connections completed in the microseconds between poll and check to be reset.
    await nextTurn();
    const listenerClosed = closeListener(server);
    // Idle connections (kept-alive ones, and ones just accepted whose first request has not come yet) are
    // closed only after a short grace: a request already sent on one would otherwise be reset (the client
    // sees ECONNRESET or "other side closed"). Within the grace it is read and answered (503 for MCP) with
    // Connection: close. A request sent after the grace can only be retried by the client.
    await nextTurn();
    await nextTurn();
    if (tracker.openSockets > 0) await delay(IDLE_CONNECTION_GRACE_MS);
    server.closeIdleConnections();
    const settled = await tracker.settle(options.shutdownTimeoutMs);
    if (!settled) {
      logger.warn('shutdown timeout reached; cutting requests still in flight', {
        inFlight: tracker.inFlight,
      });
    }
    tracker.endStreams();
    await endpoint.close();
    server.closeAllConnections();
    tracker.destroySockets();
    await listenerClosed;
    logger.info('HTTP transport closed');
  };

  return {
    address: { transport: 'streamable-http', url, host: options.host, port },
    close(closeOptions) {
      closing ??= drainAndClose(closeOptions);
      return closing;
    },
  };
}

/**
 * Stops accepting connections. `server.close()` alone would also destroy every idle keep-alive socket at
 * once (node ≥ 19 calls `this.closeIdleConnections()` in it); that is left to the caller, so it is
 * skipped for this one call.
 */
function closeListener(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  server.closeIdleConnections = () => {};
  try {
    server.close();
  } finally {
    delete (server as { closeIdleConnections?: unknown }).closeIdleConnections;
  }
  return closed;
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The host part of a URL: IPv6 in brackets; a wildcard bind is reached through the loopback address. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Node's answers to unparseable requests and slow clients have no body; these carry the same JSON-RPC error
 * body as every other refusal. Nothing is written once a response has started on the socket.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const [status, reason] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout']
        : [400, 'Bad Request'];
  const body = JSON.stringify({
    jsonrpc: '2.0',
    error: { code: JSONRPC.serverError, message: reason },
    id: null,
  });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `cache-control: no-store\r\nconnection: close\r\n\r\n${body}`,
  );
  socket.once('finish', () => socket.destroy());
}

function warnAboutShadowedEndpoint(
  routes: readonly HttpRoute[],
  path: string,
  methods: readonly string[],
  logger: TransportHost['logger'],
): void {
  for (const route of routes) {
    if (route.path === path && methods.includes(route.method.toUpperCase())) {
      logger.warn(`a plugin route answers ${route.method} ${path} instead of the MCP endpoint`);
    }
  }
}
