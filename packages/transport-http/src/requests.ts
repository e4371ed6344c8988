// Request handling: every request, on any runtime, from the first check to the handler that answers it.
// Plugin routes, the MCP endpoint and every refusal, each with a JSON body.
import type { HttpRoute, Logger } from '@pier/core/transport';
import { messageOf } from './errors.js';
import type { ExchangeTracker, HttpExchange } from './exchange.js';
import { clip, JSONRPC, sendJsonError } from './json-errors.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import type { ResolvedHttpOptions } from './options.js';
import { pathOf, type Router } from './routing.js';
import type { Security } from './security.js';

/** What request handling is built from. */
export interface RequestHandlingContext {
  readonly options: ResolvedHttpOptions;
  readonly router: Router;
  readonly security: Security;
  readonly tracker: ExchangeTracker;
  readonly endpoint: McpEndpoint;
  readonly logger: Logger;
}

/** What answers requests, and the switches the drain flips. */
export interface RequestHandling {
  /**
   * Answers `exchange`. With `fallThrough`, a path that is neither the MCP endpoint nor a plugin route is
   * left alone (`false` is returned) for the application around it to serve.
   */
  handle(exchange: HttpExchange, fallThrough?: boolean): boolean;
  /** Whether a path is one this transport serves (the MCP endpoint or a plugin route). */
  serves(target: string): boolean;
  /** Draining began: responses not yet started close their connection, and so will every later one. */
  beginDraining(): void;
  /** The drain delay is over: MCP requests get 503 from now on (plugin routes are still served). */
  refuseMcp(): void;
}

/**
 * Builds the request listener: Host check, Host/Origin validation, request-target parsing, CORS, then the
 * route table (plugin routes first, then the MCP endpoint, then 405/404).
 */
export function createRequestHandling(context: RequestHandlingContext): RequestHandling {
  const { options, router, security, tracker, endpoint, logger } = context;
  let serving = true;
  let draining = false;

  const routeFailed = (exchange: HttpExchange, error: unknown): void => {
    logger.error('HTTP route failed', {
      method: exchange.method,
      path: clip(exchange.target),
      error: messageOf(error),
    });
    sendJsonError(exchange, 500, JSONRPC.internalError, 'Internal Server Error');
  };
  const runRoute = (route: HttpRoute, exchange: HttpExchange): void => {
    try {
      const result = exchange.serveRoute(route);
      // A closure only for a handler that returned a promise: a synchronous answer allocates none.
      if (result !== undefined) result.then(undefined, (error: unknown) => routeFailed(exchange, error));
    } catch (error) {
      routeFailed(exchange, error);
    }
  };

  const handle = (exchange: HttpExchange, fallThrough = false): boolean => {
    const target = exchange.target;
    const path = pathOf(target);
    // Mounted in an application: what is not Pier's is the application's, unchecked and untouched.
    if (fallThrough && (path === undefined || !router.knows(path))) return false;
    if (draining) exchange.setHeader('connection', 'close');
    if (exchange.missingHost) {
      sendJsonError(exchange, 400, JSONRPC.serverError, 'Bad Request: missing Host header');
      return true;
    }
    const refusal = security.refusal(exchange);
    if (refusal !== undefined) {
      sendJsonError(exchange, 403, JSONRPC.serverError, refusal);
      return true;
    }
    if (path === undefined) {
      sendJsonError(
        exchange,
        400,
        JSONRPC.serverError,
        `Bad Request: unsupported request target "${clip(target)}"`,
      );
      return true;
    }
    security.applyCors(exchange);
    const method = exchange.method;
    if (method === 'OPTIONS' && options.cors !== undefined) {
      const allow = router.allowFor(path);
      if (allow !== undefined && security.preflight(exchange, allow)) return true;
    }
    const match = router.match(method, path);
    switch (match.kind) {
      case 'route':
        runRoute(match.route, exchange);
        return true;
      case 'mcp':
        if (!serving) {
          sendJsonError(
            exchange,
            503,
            JSONRPC.serverError,
            'Service Unavailable: the server is shutting down',
            { headers: { 'retry-after': '1' } },
          );
          return true;
        }
        endpoint.handle(exchange);
        return true;
      case 'method-not-allowed':
        sendJsonError(
          exchange,
          405,
          JSONRPC.serverError,
          `Method Not Allowed: ${clip(method, 20)} ${clip(exchange.basePath + path)}`,
          { headers: { allow: match.allow } },
        );
        return true;
      case 'not-found':
        sendJsonError(exchange, 404, JSONRPC.serverError, `Not Found: ${clip(exchange.basePath + path)}`);
        return true;
    }
  };

  return {
    handle,
    serves(target) {
      const path = pathOf(target);
      return path !== undefined && router.knows(path);
    },
    beginDraining() {
      draining = true;
      // Responses still to be written close their connection too, so that clients stop reusing sockets.
      tracker.closeUnstarted();
    },
    refuseMcp() {
      serving = false;
    },
  };
}
