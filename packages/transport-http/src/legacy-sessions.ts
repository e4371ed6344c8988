import type { AuthInfo, EngineConnection, Logger, TransportHost } from '@pier/core/transport';
import { messageOf } from './errors.js';
import { SessionEventStore } from './event-store.js';
import type { HttpExchange } from './exchange.js';
import { echoId, JSONRPC, sendJsonError } from './json-errors.js';
import { LegacyTransport } from './legacy-transport.js';
import type { ResolvedHttpOptions } from './options.js';
import {
  type Clock,
  type RelayedRequest,
  type SessionRegistry,
  type SessionRelay,
  SessionStore,
} from './sessions.js';

interface Session {
  readonly id: string;
  readonly connection: EngineConnection;
  readonly transport: LegacyTransport;
  /** Who opened the session, when an authenticator runs: no one else may use it. */
  readonly principal: string | undefined;
}

/** Dependencies of {@link LegacySessions}. */
export interface LegacySessionsContext {
  readonly host: TransportHost;
  readonly options: ResolvedHttpOptions;
  readonly clock: Clock;
  readonly logger: Logger;
  /** `http://host:port` of the listener, for requests whose Host header is unusable. */
  readonly origin: () => string;
}

/**
 * Sessionful serving of 2025-era clients: one engine connection and one {@link LegacyTransport} per
 * session, so that the server can talk to the client between requests (GET stream) and the session ends
 * with DELETE. Sessions are capped and expire when idle.
 */
export class LegacySessions {
  readonly #context: LegacySessionsContext;
  readonly #store: SessionRegistry<Session>;

  constructor(context: LegacySessionsContext) {
    this.#context = context;
    const init = {
      maxSessions: context.options.maxSessions,
      idleTimeoutMs: context.options.sessionIdleTimeoutMs,
      clock: context.clock,
      onExpire: (id: string, session: Session) => {
        context.logger.debug('session expired after being idle', { sessionId: id });
        void this.#close(session);
      },
    };
    this.#store = context.options.sessionRegistry?.(init) ?? new SessionStore<Session>(init);
  }

  /** Open sessions. */
  get size(): number {
    return this.#store.size;
  }

  start(): void {
    this.#store.start();
  }

  /**
   * Serves a 2025-era request (POST with its parsed body, GET or DELETE) in sessionful mode. Not async: a
   * request in a session this replica holds, the everyday case, is handed to it in the same turn; asking
   * the relay and opening a session go on in a `then`.
   */
  serve(exchange: HttpExchange, body: unknown, authInfo: AuthInfo | undefined): Promise<void> | undefined {
    const header = exchange.header('mcp-session-id');
    const principal = authInfo && this.#principalOf(authInfo);
    if (header !== undefined) {
      const session = this.#store.get(header);
      const relay = this.#context.options.sessionRelay;
      if (session === undefined && relay !== undefined && exchange.header('x-pier-relayed') === undefined) {
        return this.#relayed(exchange, body, header, principal, relay).then((relayed) =>
          relayed ? undefined : this.#serveIn(exchange, body, authInfo, undefined, header, principal),
        );
      }
      return this.#serveIn(exchange, body, authInfo, session, header, principal);
    }
    if (exchange.method === 'POST' && isInitialize(body)) {
      return this.#opened(exchange, body, principal).then((session) =>
        session === undefined
          ? undefined
          : this.#serveIn(exchange, body, authInfo, session, header, principal),
      );
    }
    sendJsonError(exchange, 400, JSONRPC.serverError, 'Bad Request: Mcp-Session-Id header is required', {
      id: echoId(body),
    });
    return undefined;
  }

  /** Whether the relay served the request on the replica that owns the session (or answered it failed). */
  async #relayed(
    exchange: HttpExchange,
    body: unknown,
    header: string,
    principal: string | undefined,
    relay: SessionRelay,
  ): Promise<boolean> {
    try {
      return await relay.relay(relayedRequest(exchange, header, principal, body));
    } catch (error) {
      this.#context.logger.warn('the session relay failed', { error: messageOf(error) });
      if (!exchange.headersSent) this.#unavailable(exchange, body, 'the session registry is unreachable');
      else exchange.destroy();
      return true;
    }
  }

  /** A new session for an initialize request, or `undefined` when it was refused (answered here). */
  async #opened(
    exchange: HttpExchange,
    body: unknown,
    principal: string | undefined,
  ): Promise<Session | undefined> {
    if (this.#store.full) this.#store.sweep();
    const id = randomId();
    let full = this.#store.full;
    const relay = this.#context.options.sessionRelay;
    if (!full && relay !== undefined) {
      try {
        full = !(await relay.claim(id, {
          principal,
          endpoint: `${this.#context.origin()}${this.#context.options.path}`,
          maxSessions: this.#context.options.maxSessions,
          idleTimeoutMs: this.#context.options.sessionIdleTimeoutMs,
        }));
      } catch (error) {
        this.#context.logger.warn('the session relay refused a new session', { error: messageOf(error) });
        this.#unavailable(exchange, body, 'the session registry is unreachable');
        return undefined;
      }
    }
    if (full) {
      this.#unavailable(exchange, body, 'too many open sessions', this.#store.retryAfterSeconds());
      return undefined;
    }
    return this.#open(id, principal);
  }

  /** Serves the request in `session` (`undefined`, or another principal's: 404). */
  #serveIn(
    exchange: HttpExchange,
    body: unknown,
    authInfo: AuthInfo | undefined,
    found: Session | undefined,
    header: string | undefined,
    principal: string | undefined,
  ): Promise<void> | undefined {
    // Another principal's session answers exactly like an unknown one: no oracle, nothing touched.
    const session = found !== undefined && found.principal === principal ? found : undefined;
    if (session === undefined) {
      sendJsonError(exchange, 404, JSONRPC.sessionNotFound, 'Session not found', { id: echoId(body) });
      return undefined;
    }
    const { id, transport } = session;
    this.#store.begin(id);
    this.#context.options.sessionRelay?.touch(id);
    exchange.onClose(() => this.#store.end(id));
    if (exchange.method === 'GET') {
      return transport.handleGet(exchange).then(() => {
        // `endStream` is set while an event stream is open: the GET was accepted (not 404, 406 or 409).
        const report = this.#context.host.reportStream;
        if (report !== undefined && exchange.endStream !== undefined && exchange.writable) {
          const ended = report({ kind: 'session' });
          exchange.onClose(() => ended());
        }
      });
    }
    if (exchange.method === 'DELETE') return transport.handleDelete(exchange);
    const posted = transport.handlePost(exchange, body, authInfo);
    if (header !== undefined) return posted;
    // The initialize request was refused (say, for its Accept header): no session came of it.
    const settle = () => {
      if (transport.initialized) return;
      this.#store.delete(id);
      void this.#close(session);
    };
    if (posted === undefined) {
      settle();
      return undefined;
    }
    return posted.then(settle);
  }

  /** Closes every session (their streams end); used by shutdown. */
  async closeAll(): Promise<void> {
    await Promise.all(this.#store.drain().map((session) => this.#close(session)));
  }

  /** 503 with `Retry-After` (1 s unless given). */
  #unavailable(res: HttpExchange, body: unknown, why: string, retryAfterSeconds = 1): void {
    sendJsonError(res, 503, JSONRPC.serverError, `Service Unavailable: ${why}, retry later`, {
      id: echoId(body),
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }

  #principalOf(authInfo: AuthInfo): string {
    return this.#context.host.authenticator?.principalOf?.(authInfo) ?? authInfo.clientId;
  }

  async #open(id: string, principal: string | undefined): Promise<Session> {
    const { host, options, logger } = this.#context;
    const resumability = options.resumability;
    let transport: LegacyTransport | undefined;
    const connection = host.engine.connect({
      sessionId: id,
      // What belongs to no call (list changes, updates) goes on the session's GET stream.
      send: (message) => transport?.sendUnrelated(message),
      transport: 'http',
    });
    transport = new LegacyTransport({
      engine: host.engine,
      logger,
      connection,
      ...(resumability !== undefined && {
        eventStore: resumability.eventStore?.(id) ?? new SessionEventStore(resumability.maxEventsPerSession),
      }),
      ...(resumability?.retryMs !== undefined && { retryMs: resumability.retryMs }),
      onClose: () => {
        this.#store.delete(id);
        options.sessionRelay?.release(id);
      },
    });
    const session: Session = { id, connection, transport, principal };
    // Counted at once so that concurrent initializes cannot pass the cap.
    this.#store.add(id, session);
    return session;
  }

  async #close(session: Session): Promise<void> {
    try {
      await session.transport.close();
    } catch (error) {
      this.#context.logger.warn('closing a session failed', {
        sessionId: session.id,
        error: messageOf(error),
      });
    }
  }
}

/** Whether `body` is an `initialize` request (a JSON-RPC request of that method). */
function isInitialize(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    (body as { method?: unknown }).method === 'initialize' &&
    'id' in body
  );
}

/**
 * A session id: `node:crypto`'s where the runtime has it (loaded by the first session, not at start-up: about
 * 2 % of an HTTP cold start on Node 20), the web's `crypto.randomUUID` elsewhere.
 */
function randomId(): string {
  const load = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule;
  const node = typeof load === 'function' ? (load('node:crypto') as { randomUUID(): string }) : undefined;
  return node !== undefined ? node.randomUUID() : crypto.randomUUID();
}

/** What a session relay is handed; node's request and response where the exchange is node's. */
function relayedRequest(
  exchange: HttpExchange,
  sessionId: string,
  principal: string | undefined,
  body: unknown,
): RelayedRequest {
  const node = exchange as Partial<Pick<RelayedRequest, 'req' | 'res'>>;
  if (node.req === undefined || node.res === undefined) {
    throw new Error('a session relay needs node request handling (the listener or createNodeHandler)');
  }
  return { sessionId, principal, req: node.req, res: node.res, body };
}
