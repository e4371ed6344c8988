// The transport: `httpTransport(options)` validates the options and, when `listen` starts it, binds a node:http
// server whose requests go to request handling (requests.ts) and whose close is a drain (drain.ts).
import type * as NodeHttp from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { PierTransport, RunningTransport, TransportHost } from '@pier/core/transport';
import { continueOrRefuse } from './body.js';
import { drainServer, SocketSet } from './drain.js';
import { HttpTransportError } from './errors.js';
import { delay } from './exchange.js';
import { createHandling } from './handling.js';
import { JSONRPC } from './json-errors.js';
import { NodeExchange } from './node-exchange.js';
import { DEFAULTS, type HttpListenOptions, type ResolvedHttpOptions, resolveHttpOptions } from './options.js';
import { pathOf } from './routing.js';
import { type Clock, systemClock } from './sessions.js';

// Not `import { createServer } from 'node:http'`: on Node 24 an ES import of node:http builds the module's
// ES facade, which reads every export, among them the lazy `WebSocket` that loads undici: about 450 M
// instructions, a third of an HTTP server's start. The CommonJS module read directly reads nothing.
const { createServer } = process.getBuiltinModule('node:http') as typeof NodeHttp;

/** Seams for tests; not part of the public API. */
export interface TransportInternals {
  readonly clock?: Clock;
  /** Waits out the drain delay (tests end it when they choose). */
  readonly drainDelay?: (ms: number) => Promise<void>;
}

/**
 * The streamable HTTP transport, for `server.listen(httpTransport(options))`. The options are checked now:
 * a bad one throws an {@link HttpTransportError} `HTTP_OPTIONS_INVALID` listing every problem, before
 * anything listens. Unknown options are warned about when the transport starts.
 *
 * @example
 * ```ts
 * import { httpTransport } from '@pier/transport-http';
 * const { url } = await server.listen(httpTransport({ port: 0, sessions: true }));
 * ```
 */
export function httpTransport(options: HttpListenOptions = {}): PierTransport {
  const unknown: string[] = [];
  const resolved = resolveHttpOptions(options, (message) => unknown.push(message));
  return Object.freeze({
    name: 'streamable-http',
    start(host: TransportHost) {
      for (const message of unknown) host.logger.warn(message);
      return startResolved(host, resolved, {});
    },
  });
}

/**
 * Starts MCP streamable HTTP for `host` and resolves once it listens: what `httpTransport(options).start`
 * does, for a host of your own. Its `close()` drains.
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
  const options = resolveHttpOptions(rawOptions, (message) => host.logger.warn(message));
  return startResolved(host, options, internals);
}

async function startResolved(
  host: TransportHost,
  options: ResolvedHttpOptions,
  internals: TransportInternals,
): Promise<RunningTransport> {
  const logger = host.logger;
  let origin = `http://${urlHost(options.host)}:${options.port}`;
  const handling = createHandling(host, options, {
    clock: internals.clock ?? systemClock,
    origin: () => origin,
  });
  const { tracker, requests, endpoint } = handling;
  const sockets = new SocketSet();
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    requests.handle(new NodeExchange(req, res, tracker));
  };

  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      // Node looks for timed-out requests at this pace (30 s by default, which would make a 10 s header
      // timeout take up to 40 s).
      connectionsCheckingInterval: Math.min(1_000, Math.max(100, Math.floor(options.headersTimeoutMs / 4))),
      // A missing Host is answered by request handling, with a JSON body like every other refusal.
      requireHostHeader: false,
    },
    onRequest,
  );
  // No idle-socket timeout: it would cut quiet but legitimate SSE streams.
  server.timeout = 0;
  server.on('connection', (socket: Socket) => sockets.add(socket));
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
    const issue = `cannot listen on ${urlHost(options.host)}:${options.port}: ${code} (${(error as Error).message})`;
    throw new HttpTransportError('HTTP_LISTEN_FAILED', `streamable-http: ${issue}`, {
      issues: [issue],
      cause: error,
    });
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
  return {
    address: { transport: 'streamable-http', url, host: options.host, port },
    close({ reason, drainDelayMs }) {
      closing ??= (async () => {
        const delayMs =
          drainDelayMs ?? options.drainDelayMs ?? (reason === 'SIGTERM' ? DEFAULTS.drainDelayMsOnSigterm : 0);
        logger.info('HTTP transport draining', { reason, drainDelayMs: delayMs, inFlight: tracker.inFlight });
        await drainServer({
          server,
          tracker,
          sockets,
          logger,
          delayMs,
          shutdownTimeoutMs: options.shutdownTimeoutMs,
          waitDelay: internals.drainDelay ?? delay,
          beginDraining: requests.beginDraining,
          refuseMcp: requests.refuseMcp,
          closeEndpoint: () => endpoint.close(),
        });
        logger.info('HTTP transport closed');
      })();
      return closing;
    },
  };
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
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n` +
      `cache-control: no-store\r\nconnection: close\r\n\r\n${body}`,
  );
  socket.once('finish', () => socket.destroy());
}
