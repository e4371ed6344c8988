// Everything that answers requests, built once per server and shared by every way of serving it: the node
// listener, `createNodeHandler` and `createFetchHandler`. Runtime-neutral: no `node:` module.
import type { HttpRoute, Logger, TransportHost } from '@pier/core/transport';
import { ExchangeTracker } from './exchange.js';
import { createMcpEndpoint, type McpEndpoint } from './mcp-endpoint.js';
import type { ResolvedHttpOptions } from './options.js';
import { createRequestHandling, type RequestHandling } from './requests.js';
import { createRouter } from './routing.js';
import { createSecurity } from './security.js';
import type { Clock } from './sessions.js';

/** Request handling with what it is made of. */
export interface Handling {
  readonly tracker: ExchangeTracker;
  readonly requests: RequestHandling;
  readonly endpoint: McpEndpoint;
}

/** What {@link createHandling} needs besides the host and the options. */
export interface HandlingContext {
  readonly clock: Clock;
  /** `http://host:port` of the listener, or of the application that mounts the handler, when known. */
  readonly origin: () => string;
}

/** Builds request handling for `host` (routes, security, the MCP endpoint in both eras). */
export function createHandling(
  host: TransportHost,
  options: ResolvedHttpOptions,
  context: HandlingContext,
): Handling {
  const logger = host.logger;
  const mcpMethods = options.sessions ? ['GET', 'POST', 'DELETE'] : ['POST'];
  warnAboutShadowedEndpoint(host.routes, options.path, mcpMethods, logger);
  const tracker = new ExchangeTracker();
  const endpoint = createMcpEndpoint({
    host,
    options,
    clock: context.clock,
    tracker,
    logger,
    origin: context.origin,
  });
  const requests = createRequestHandling({
    options,
    router: createRouter(
      host.routes,
      { path: options.path, methods: mcpMethods },
      options.cors ? ['OPTIONS'] : [],
    ),
    security: createSecurity(options, host.authenticator !== undefined),
    tracker,
    endpoint,
    logger,
  });
  return { tracker, requests, endpoint };
}

/** What {@link drainHandling} is told. */
export interface HandlingDrain {
  readonly logger: Logger;
  readonly delayMs: number;
  readonly shutdownTimeoutMs: number;
  readonly waitDelay: (ms: number) => Promise<void>;
}

/**
 * The drain of a handler that owns no socket (the application around it does): responses not started
 * close their connection, MCP is served for the drain delay, then refused; requests in flight get up to
 * the shutdown timeout; streams end and sessions close.
 */
export async function drainHandling(handling: Handling, drain: HandlingDrain): Promise<void> {
  const { requests, tracker, endpoint } = handling;
  requests.beginDraining();
  await drain.waitDelay(drain.delayMs);
  requests.refuseMcp();
  if (!(await tracker.settle(drain.shutdownTimeoutMs))) {
    drain.logger.warn('shutdown timeout reached; cutting requests still in flight', {
      inFlight: tracker.inFlight,
    });
  }
  tracker.endStreams();
  await endpoint.close();
}

function warnAboutShadowedEndpoint(
  routes: readonly HttpRoute[],
  path: string,
  methods: readonly string[],
  logger: Logger,
): void {
  for (const route of routes) {
    if (route.path === path && methods.includes(route.method.toUpperCase())) {
      logger.warn(`a plugin route answers ${route.method} ${path} instead of the MCP endpoint`);
    }
  }
}
