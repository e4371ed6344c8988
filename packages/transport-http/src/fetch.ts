// `@pier/transport-http/fetch`: a Pier server as a web-standard handler, `fetch(request) → Response`, for Bun,
// Deno, Cloudflare Workers, Hono, Next.js route handlers and Node. Its module graph loads no `node:` module.
import type { Logger } from '@pier/core/transport';
import { messageOf } from './errors.js';
import type { Handling } from './handling.js';
import { JSONRPC, jsonError } from './json-errors.js';
import {
  belowBase,
  type HandlerTarget,
  type HttpHandlerOptions,
  mount,
  resolveHandlerOptions,
} from './mount.js';
import { targetOf, WebExchange } from './web-exchange.js';

export type { HttpTransportErrorCode } from './errors.js';
export { HttpTransportError } from './errors.js';
export type { HandlerTarget, HttpHandlerOptions, ServableServer } from './mount.js';
export type { HttpCorsOptions, HttpResumabilityOptions } from './options.js';
export type { Clock, SessionRegistry, SessionRegistryInit } from './sessions.js';

/** Options of {@link createFetchHandler}: the handler options, less the node-only session relay. */
export type FetchHandlerOptions = Omit<HttpHandlerOptions, 'sessionRelay'>;

/** A Pier server as a web-standard request handler. */
export interface FetchHandler {
  /** Answers every request: the MCP endpoint, plugin routes, and 404/405 JSON bodies for anything else. */
  fetch(request: Request): Promise<Response>;
  /**
   * Answers the requests that are Pier's (the MCP endpoint and plugin routes) and resolves `undefined`
   * for any other path, untouched, so that the application around it can serve them.
   */
  handle(request: Request): Promise<Response | undefined>;
  /** Drains (as the listener does) and closes the server; idempotent. */
  close(): Promise<void>;
}

/**
 * Serves `server` as `fetch(request) → Response`, with the node listener's security defaults, limits and
 * error bodies. The server starts on the first request (skills load, the lifecycle turns `ready`): no
 * top-level `await` is needed. On Cloudflare Workers, `sessions: true` is refused here (an isolate does not
 * live long enough to hold a session); 2026-07-28 and stateless 2025 clients are served.
 *
 * @example
 * ```ts
 * import { createFetchHandler } from '@pier/transport-http/fetch';
 * const mcp = createFetchHandler(server, { allowedHosts: ['mcp.example.com'] });
 * export default { fetch: mcp.fetch };                  // Workers, Bun, Deno
 * ```
 */
export function createFetchHandler(server: HandlerTarget, options: FetchHandlerOptions = {}): FetchHandler {
  const { resolved, warnings, basePath } = resolveHandlerOptions(options, 'createFetchHandler', (checked) => {
    const issues: string[] = [];
    if (checked.sessionRelay !== undefined) {
      issues.push('sessionRelay: relays forward node requests; use createNodeHandler or the listener');
    }
    if (checked.sessions && onWorkers()) {
      issues.push(
        'sessions: Cloudflare Workers cannot hold 2025 sessions (an isolate may be evicted between ' +
          'requests, and one request cannot write to another one’s stream); leave sessions off: ' +
          '2026-07-28 clients and 2025 clients without sessions are served',
      );
    }
    return issues;
  });
  const mounted = mount(server, 'fetch', resolved, warnings);

  const serve = (
    handling: Handling,
    request: Request,
    fallThrough: boolean,
  ): Promise<Response> | undefined => {
    const target = belowBase(targetOf(request.url), basePath);
    // Not Pier's: left untouched for the application around the handler.
    if (fallThrough && (target === undefined || !handling.requests.serves(target))) return undefined;
    const exchange = new WebExchange(request, target ?? targetOf(request.url), handling.tracker);
    if (target !== undefined && basePath !== undefined) exchange.basePath = basePath;
    handling.requests.handle(exchange);
    return exchange.response;
  };

  const answer = async (request: Request, fallThrough: boolean): Promise<Response | undefined> => {
    let handling = mounted.ready();
    if (handling instanceof Promise) {
      try {
        handling = await handling;
      } catch (error) {
        (server as { logger?: Logger }).logger?.error('the server did not start', {
          error: messageOf(error),
        });
        return notStarted();
      }
    }
    return serve(handling, request, fallThrough);
  };

  return Object.freeze({
    fetch: async (request: Request) => (await answer(request, false)) as Response,
    handle: (request: Request) => answer(request, true),
    close: () => mounted.close(),
  });
}

/** The server could not start (say a skills folder that does not load): 503, the reason in the log only. */
function notStarted(): Response {
  const message = 'Service Unavailable: the server did not start';
  return new Response(jsonError(JSONRPC.serverError, message), {
    status: 503,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'retry-after': '1' },
  });
}

/** Whether this is Cloudflare's workerd (its `navigator.userAgent` says so). */
function onWorkers(): boolean {
  const agent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
  return agent === 'Cloudflare-Workers';
}
