// `createNodeHandler`: a Pier server mounted in an application that owns the node:http server — Express
// (`app.use`), Fastify (a route that hands over `request.raw`/`reply.raw`), Koa, or plain `node:http`. It runs
// the listener's own request handling on node's request and response: no web `Request` in between.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@pier/core/transport';
import { messageOf } from './errors.js';
import type { Handling } from './handling.js';
import { JSONRPC, jsonError, jsonHeaders } from './json-errors.js';
import {
  belowBase,
  type HandlerTarget,
  type HttpHandlerOptions,
  mount,
  resolveHandlerOptions,
} from './mount.js';
import { NodeExchange } from './node-exchange.js';

/** Express sets where it mounted the middleware, and strips it from `req.url`. */
type ExpressRequest = IncomingMessage & { baseUrl?: unknown };

/**
 * A Pier server as node middleware: `(req, res, next?)`. With `next`, a path that is not Pier's (neither the
 * MCP endpoint nor a plugin route) goes to `next()` untouched; without it, it gets the listener's 404.
 */
export interface NodeHandler {
  (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void;
  /** Drains (as the listener does) and closes the server; idempotent. */
  close(): Promise<void>;
}

/**
 * Serves `server` from your own node:http server or framework, with the listener's security defaults,
 * limits and error bodies. The server starts on the first request. A body a framework parsed already
 * (`req.body`, set by `express.json()`, or given by Fastify) is used as it is.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { createNodeHandler } from '@pier/transport-http';
 * const app = express();
 * app.use('/api', createNodeHandler(server));   // MCP at /api/mcp, health at /api/health
 * ```
 */
export function createNodeHandler(server: HandlerTarget, options: HttpHandlerOptions = {}): NodeHandler {
  const { resolved, warnings, basePath } = resolveHandlerOptions(options, 'createNodeHandler');
  const mounted = mount(server, 'node-handler', resolved, warnings);

  const serve = (
    handling: Handling,
    req: IncomingMessage,
    res: ServerResponse,
    next: ((error?: unknown) => void) | undefined,
  ): void => {
    const target = belowBase(req.url ?? '', basePath);
    // Not Pier's: the application's next handler serves it, untouched.
    if (next !== undefined && (target === undefined || !handling.requests.serves(target))) {
      next();
      return;
    }
    const exchange = new NodeExchange(req, res, handling.tracker, target);
    // The prefix the framework took off (Express's `req.baseUrl`) or this handler did (`basePath`).
    const prefix = basePath ?? (req as ExpressRequest).baseUrl;
    if (target !== undefined && typeof prefix === 'string') exchange.basePath = prefix;
    handling.requests.handle(exchange);
  };

  const handler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void => {
    const handling = mounted.ready();
    if (!(handling instanceof Promise)) {
      serve(handling, req, res, next);
      return;
    }
    handling.then(
      (started) => serve(started, req, res, next),
      (error: unknown) => {
        (server as { logger?: Logger }).logger?.error('the server did not start', {
          error: messageOf(error),
        });
        if (next !== undefined) next(error);
        else if (!res.headersSent) {
          const body = jsonError(JSONRPC.serverError, 'Service Unavailable: the server did not start');
          res.writeHead(503, jsonHeaders(body, { 'cache-control': 'no-store', 'retry-after': '1' }));
          res.end(body);
        }
      },
    );
  };
  return Object.assign(handler, { close: () => mounted.close() });
}
