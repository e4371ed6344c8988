// A Pier server served by a handler the application calls (`createFetchHandler`, `createNodeHandler`) rather
// than by a listener of its own. The handler is a transport like the listener: the server starts it
// (`server.listen(transport)`: skills load, signals are watched, the lifecycle turns `ready`) on the first
// request, so that nothing needs a top-level `await` (Workers have none at start-up), and `close()` drains it.
import { OptionIssues } from '@pier/core';
import type {
  ListenResult,
  PierTransport,
  RunningTransport,
  TransportCloseOptions,
  TransportHost,
} from '@pier/core/transport';
import { HttpTransportError, optionsError } from './errors.js';
import { delay } from './exchange.js';
import { createHandling, drainHandling, type Handling } from './handling.js';
import { DEFAULTS, type HttpListenOptions, type ResolvedHttpOptions, resolveHttpOptions } from './options.js';
import { systemClock } from './sessions.js';

/** Options of the listener that a handler has no use for: the application owns the socket. */
const LISTENER_ONLY = ['port', 'headersTimeoutMs', 'requestTimeoutMs', 'keepAliveTimeoutMs'] as const;

/**
 * Options of a mounted handler: the listener's, less what belongs to the socket (`port` and the timeouts,
 * which are your application's). `host` is the address your application binds: a loopback one (the
 * default, `127.0.0.1`) turns on the Host/Origin checks against DNS rebinding, as on the listener; behind
 * a public name, list it in `allowedHosts` (or give `host: '0.0.0.0'`).
 */
export interface HttpHandlerOptions extends Omit<HttpListenOptions, (typeof LISTENER_ONLY)[number] | 'path'> {
  /** Path of the MCP endpoint, below {@link basePath}. Default `/mcp`. */
  readonly path?: string;
  /**
   * Where the application mounts the handler, when the request still carries that prefix (a Fastify route,
   * a Next.js catch-all route, `app.all('/api/*')`): `'/api'` serves `/api/mcp` and `/api/health`. Not
   * needed where the framework strips it (Express `app.use('/api', …)`, Hono `app.mount`). Default none.
   */
  readonly basePath?: string;
}

/** A Pier server (`createServer` of `@pier/core`), as a handler starts and closes it. */
export interface ServableServer {
  listen(transport: PierTransport): Promise<ListenResult>;
  close(): Promise<void>;
}

/** What a handler serves: a Pier server, or any {@link TransportHost} (then its lifecycle is yours). */
export type HandlerTarget = ServableServer | TransportHost;

/** The lazily started request handling of one handler. */
export interface Mount {
  /** Request handling, started on first use (a promise only until it started). */
  ready(): Handling | Promise<Handling>;
  /** Drains and stops: closes the server when the handler started it. Idempotent. */
  close(): Promise<void>;
}

/** Checks a handler's options now (a bad one throws `HTTP_OPTIONS_INVALID`). */
export function resolveHandlerOptions(
  options: HttpHandlerOptions,
  handler: string,
  extraIssues: (resolved: ResolvedHttpOptions) => string[] = () => [],
): {
  readonly resolved: ResolvedHttpOptions;
  readonly warnings: readonly string[];
  readonly basePath: string | undefined;
} {
  if (typeof options !== 'object' || options === null) {
    const issues = new OptionIssues('streamable-http');
    issues.add(`${handler}: options must be an object`);
    issues.throwNow(optionsError);
  }
  const issues = new OptionIssues('streamable-http');
  for (const key of LISTENER_ONLY) {
    if (key in options) {
      issues.add(`${key}: ${handler} does not listen; your application owns the socket and its timeouts`);
    }
  }
  const { basePath, ...listenOptions } = options;
  if (
    basePath !== undefined &&
    (typeof basePath !== 'string' || !/^\/[^?#]*[^/?#]$/.test(basePath) || basePath.includes('//'))
  ) {
    issues.add('basePath: must be a path such as /api (a leading slash, no trailing slash, no query)');
  }
  const warnings: string[] = [];
  let resolved: ResolvedHttpOptions;
  try {
    resolved = resolveHttpOptions(listenOptions, (message) => warnings.push(message));
  } catch (error) {
    if (error instanceof HttpTransportError && issues.count > 0) {
      for (const issue of error.issues) issues.add(issue);
      issues.throwNow(optionsError);
    }
    throw error;
  }
  for (const issue of extraIssues(resolved)) issues.add(issue);
  issues.throwIfAny(optionsError);
  return { resolved, warnings, basePath };
}

/**
 * The request target below `basePath` (`/api/mcp?x` → `/mcp?x`), or `undefined` when the request is not
 * under it. Without a base path, the target as it is.
 */
export function belowBase(target: string, basePath: string | undefined): string | undefined {
  if (basePath === undefined) return target;
  if (!target.startsWith(basePath)) return undefined;
  const rest = target.slice(basePath.length);
  if (rest === '') return '/';
  const next = rest.charCodeAt(0);
  if (next === 47 /* / */) return rest;
  if (next === 63 /* ? */) return `/${rest}`;
  return undefined;
}

/**
 * Makes the handler's transport and starts it on first use: through `server.listen(transport)` for a
 * Pier server, or `transport.start(host)` for a bare host.
 */
export function mount(
  target: HandlerTarget,
  name: string,
  options: ResolvedHttpOptions,
  warnings: readonly string[],
): Mount {
  let handling: Handling | undefined;
  let starting: Promise<Handling> | undefined;
  let running: RunningTransport | undefined;
  let closing: Promise<void> | undefined;

  const transport: PierTransport = Object.freeze({
    name,
    async start(host: TransportHost): Promise<RunningTransport> {
      for (const message of warnings) host.logger.warn(message);
      const started = createHandling(host, options, { clock: systemClock, origin: () => '' });
      started.endpoint.start();
      handling = started;
      return {
        address: { transport: name, url: options.path },
        async close({ reason, drainDelayMs }: TransportCloseOptions) {
          const delayMs =
            drainDelayMs ??
            options.drainDelayMs ??
            (reason === 'SIGTERM' ? DEFAULTS.drainDelayMsOnSigterm : 0);
          host.logger.info('HTTP handler draining', { reason, drainDelayMs: delayMs });
          await drainHandling(started, {
            logger: host.logger,
            delayMs,
            shutdownTimeoutMs: options.shutdownTimeoutMs,
            waitDelay: delay,
          });
          host.logger.info('HTTP handler closed');
        },
      };
    },
  });

  const start = async (): Promise<Handling> => {
    if (isServable(target)) await target.listen(transport);
    else running = await transport.start(target);
    return handling as Handling;
  };

  return {
    ready() {
      if (handling !== undefined) return handling;
      starting ??= start();
      return starting;
    },
    close() {
      closing ??= (async () => {
        if (isServable(target)) await target.close();
        else await running?.close({ reason: 'close' });
      })();
      return closing;
    },
  };
}

function isServable(target: HandlerTarget): target is ServableServer {
  return typeof (target as Partial<ServableServer>).listen === 'function';
}
