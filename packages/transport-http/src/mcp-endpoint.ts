// The MCP endpoint: authenticates, reads the body once under the size limit and parses it once, asks core
// which era the message is (`classifyEra`, with the request's headers), and hands it on: 2026-07-28 to
// stateless modern serving (modern.ts), 2025-era to the legacy transport, one per exchange or one per session.
// Everything MCP itself is the engine's.
import {
  type AuthInfo,
  classifyEra,
  type HttpRefusal,
  isJsonContentType,
  type Logger,
  type TransportHost,
} from '@pier/core/transport';
import { messageOf } from './errors.js';
import { type BodyRead, byteLength, type ExchangeTracker, type HttpExchange } from './exchange.js';
import { echoId, JSONRPC, jsonError, jsonHeaders, sendJsonError } from './json-errors.js';
import { LegacySessions } from './legacy-sessions.js';
import { LegacyTransport } from './legacy-transport.js';
import { serveModern } from './modern.js';
import type { ResolvedHttpOptions } from './options.js';
import type { Clock } from './sessions.js';

/** Dependencies of the MCP endpoint. */
export interface McpEndpointContext {
  readonly host: TransportHost;
  readonly options: ResolvedHttpOptions;
  readonly clock: Clock;
  readonly tracker: ExchangeTracker;
  readonly logger: Logger;
  /** `http://host:port` of the listener. */
  readonly origin: () => string;
}

/** The MCP endpoint: answers every request routed to it, never throws. */
export interface McpEndpoint {
  handle(exchange: HttpExchange): void;
  start(): void;
  /** Stops serving: closes every session. */
  close(): Promise<void>;
}

/** Serves both protocol eras from one path. */
export function createMcpEndpoint(context: McpEndpointContext): McpEndpoint {
  const { host, options, tracker, logger } = context;
  const sessions = options.sessions ? new LegacySessions(context) : undefined;
  const authenticator = host.authenticator;

  // No async function and no `await` on a request's way (each was a promise more per request, and every
  // promise also runs each async hook the process has: OpenTelemetry's context manager on Node 20): each
  // step hands on to the next, and only a step that ends in a promise gets a `catch`.
  const crashed = (exchange: HttpExchange, error: unknown): void => {
    logger.error('MCP request crashed', { error: messageOf(error) });
    sendJsonError(exchange, 500, JSONRPC.internalError, 'Internal error', { id: null });
  };
  /** Runs one step of a request: what it throws, or its promise rejects with, is a 500. */
  const guarded = <A, B>(
    step: (exchange: HttpExchange, a: A, b: B) => Promise<void> | undefined,
    exchange: HttpExchange,
    a: A,
    b: B,
  ): void => {
    let pending: Promise<void> | undefined;
    try {
      pending = step(exchange, a, b);
    } catch (error) {
      crashed(exchange, error);
      return;
    }
    if (pending !== undefined) pending.catch((error: unknown) => crashed(exchange, error));
  };

  const serve = (exchange: HttpExchange): Promise<void> | undefined => {
    if (authenticator === undefined) return authorized(exchange, undefined);
    // Before the body is read: a refused request costs no parsing.
    const outcome = authenticate(authenticator, exchange, logger);
    if (outcome instanceof Promise) return outcome.then((settled) => authenticated(exchange, settled));
    return authenticated(exchange, outcome);
  };

  const authenticated = (exchange: HttpExchange, outcome: AuthOutcome): Promise<void> | undefined => {
    if ('refusal' in outcome) {
      sendRefusal(exchange, outcome.refusal);
      return undefined;
    }
    return authorized(exchange, outcome.authInfo);
  };

  const authorized = (exchange: HttpExchange, authInfo: AuthInfo | undefined): Promise<void> | undefined => {
    if (exchange.method !== 'POST') {
      // GET (the session's stream) and DELETE only reach the endpoint in sessionful mode.
      if (exchange.method === 'GET') tracker.promote(exchange);
      return (sessions as LegacySessions).serve(exchange, undefined, authInfo);
    }
    if (!isJsonContentType(exchange.header('content-type'))) {
      sendJsonError(
        exchange,
        415,
        JSONRPC.serverError,
        'Unsupported Media Type: Content-Type must be application/json',
      );
      return undefined;
    }
    exchange.readBody(options.maxBodyBytes, (read) => guarded(withBody, exchange, read, authInfo));
    return undefined;
  };

  const withBody = (
    exchange: HttpExchange,
    read: BodyRead,
    authInfo: AuthInfo | undefined,
  ): Promise<void> | undefined => {
    if (!read.ok) {
      if (read.reason === 'too-large') {
        const body = jsonError(
          JSONRPC.serverError,
          `Payload Too Large: request body must not exceed ${options.maxBodyBytes} bytes`,
        );
        exchange.refuseOversized(body, jsonHeaders(body, { 'cache-control': 'no-store' }));
      } else exchange.destroy();
      return undefined;
    }
    let body: unknown;
    if ('parsed' in read) body = read.parsed;
    else {
      try {
        body = JSON.parse(read.text);
      } catch {
        const message =
          read.text.trim() === ''
            ? 'Parse error: the request body is empty'
            : 'Parse error: the request body is not valid JSON';
        sendJsonError(exchange, 400, JSONRPC.parseError, message);
        return undefined;
      }
    }
    const classified = classifyEra({ body, headers: (name) => exchange.header(name) });
    if ('refused' in classified) {
      const { status, error } = classified.refused;
      logger.debug('MCP request refused', { status, error: error.message });
      const text = JSON.stringify({ jsonrpc: '2.0', error, id: echoId(body) });
      exchange.respond(status, jsonHeaders(text), text);
      return undefined;
    }
    if (classified.era === 'modern') {
      serveModern(
        host,
        tracker,
        exchange,
        body as { method: string },
        classified.envelope,
        authInfo,
        crashed,
      );
      return undefined;
    }
    if (sessions !== undefined) return sessions.serve(exchange, body, authInfo);
    // Without sessions, each 2025-era exchange is served alone: it has no connection to the client after it.
    return new LegacyTransport({ engine: host.engine, logger }).handlePost(exchange, body, authInfo);
  };

  return {
    handle(exchange) {
      guarded(serve, exchange, undefined, undefined);
    },
    start() {
      sessions?.start();
    },
    async close() {
      await sessions?.closeAll();
    },
  };
}

type AuthOutcome = { readonly authInfo: AuthInfo } | { readonly refusal: HttpRefusal };

/**
 * Runs the authenticator; one that throws is a 500 that names nothing of the request. An authenticator
 * that decides at once (a verified-token cache hit) is answered at once: no promise, no extra tick.
 */
function authenticate(
  authenticator: NonNullable<TransportHost['authenticator']>,
  exchange: HttpExchange,
  logger: Logger,
): AuthOutcome | Promise<AuthOutcome> {
  let outcome: unknown;
  try {
    outcome = authenticator.authenticate(exchange.head());
  } catch (error) {
    logger.error('the authenticator failed', { error: messageOf(error) });
    return AUTHENTICATOR_FAILED;
  }
  if (outcome instanceof Promise) {
    return outcome.then(
      (settled: unknown) => checkedOutcome(settled, logger),
      (error: unknown) => {
        logger.error('the authenticator failed', { error: messageOf(error) });
        return AUTHENTICATOR_FAILED;
      },
    );
  }
  return checkedOutcome(outcome, logger);
}

const AUTHENTICATOR_FAILED: AuthOutcome = {
  refusal: {
    status: 500,
    body: { jsonrpc: '2.0', error: { code: JSONRPC.internalError, message: 'Internal error' }, id: null },
  },
};

function checkedOutcome(outcome: unknown, logger: Logger): AuthOutcome {
  if (outcome !== null && typeof outcome === 'object' && ('authInfo' in outcome || 'refusal' in outcome)) {
    return outcome as AuthOutcome;
  }
  logger.error('the authenticator returned neither authInfo nor refusal');
  return AUTHENTICATOR_FAILED;
}

/** Sends an authenticator's refusal: its status, headers and JSON body, never cached. */
function sendRefusal(exchange: HttpExchange, refusal: HttpRefusal): void {
  const body = refusal.body === undefined ? '' : JSON.stringify(refusal.body);
  exchange.respond(
    refusal.status,
    {
      'cache-control': 'no-store',
      ...(body !== '' && { 'content-type': 'application/json' }),
      'content-length': String(byteLength(body)),
      // The body of the refused request was never read: do not read it as the next request's.
      ...(exchange.method === 'POST' && { connection: 'close' }),
      ...refusal.headers,
    },
    body,
  );
}
