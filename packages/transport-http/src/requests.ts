// Request handling: every request the node:http server receives, from the first check to the handler
// that answers it. Plugin routes, the MCP endpoint and every refusal, each with a JSON body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpRoute, Logger } from '@pier/core/transport';
import type { ExchangeTracker } from './drain.js';
import { messageOf } from './errors.js';
import { clip, JSONRPC, sendJsonError } from './json-errors.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import type { ResolvedHttpOptions } from './options.js';
import { pathOf, type Router } from './routing.js';
import type { Security } from './security.js';
import { serveWebRoute } from './web-route.js';

/** What request handling is built from. */
export interface RequestHandlingContext {
  readonly options: ResolvedHttpOptions;
  readonly router: Router;
  readonly security: Security;
  readonly tracker: ExchangeTracker;
  readonly endpoint: McpEndpoint;
  readonly logger: Logger;
}

/** The server's request listener, and the switches the drain flips. */
export interface RequestHandling {
  readonly onRequest: (req: IncomingMessage, res: ServerResponse) => void;
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

  const routeFailed = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    logger.error('HTTP route failed', {
      method: req.method,
      path: clip(req.url ?? ''),
      error: messageOf(error),
    });
    sendJsonError(res, 500, JSONRPC.internalError, 'Internal Server Error');
  };
  const runRoute = (handler: HttpRoute['handler'], req: IncomingMessage, res: ServerResponse): void => {
    try {
      const result = serveWebRoute(handler, req, res);
      // A closure only for a handler that returned a promise: a synchronous answer allocates none.
      if (result !== undefined) result.then(undefined, (error: unknown) => routeFailed(req, res, error));
    } catch (error) {
      routeFailed(req, res, error);
    }
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    tracker.begin(res);
    if (draining) res.setHeader('connection', 'close');
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
        if (!serving) {
          sendJsonError(res, 503, JSONRPC.serverError, 'Service Unavailable: the server is shutting down', {
            headers: { 'retry-after': '1' },
          });
          return;
        }
        endpoint.handle(req, res, tracker.exchange(res));
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

  return {
    onRequest,
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
