// The request engine: one place that answers every MCP message of every era, for every transport. A
// transport reads bytes, classifies the era (`classifyEra`), and hands each message to `handle` with what
// it knows of the request (`Inbound`); it writes the `Answer` back. The method table, the middleware chain
// of each method and every listing are built once, here, when the server is created.
import {
  type AuthInfo,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  type ServerCapabilities,
} from '@modelcontextprotocol/server';
import { MissingClientCapabilityError, messageOf, PierError, RequestRefusedError } from '../errors.js';
import type { Logger } from '../logger.js';
import type {
  HttpAuthenticator,
  McpObserver,
  ObservedOutcome,
  ObservedRequest,
  ObservedSession,
} from '../plugins/api.js';
import { type Finish, finishRequest, observeRequest } from '../plugins/observe.js';
import { Call, type Inbound } from './call.js';
import type { Catalog } from './catalog.js';
import { clientMessage } from './client-errors.js';
import { Connection, type ConnectionOptions } from './connection.js';
import { addHeaders, type HeaderList } from './headers.js';
import { compose, type MiddlewareEntry, type Target } from './middleware.js';
import { encodeModern } from './modern/encode.js';
import { observedHeaders } from './observed-headers.js';
import { insufficientScope, scopeChallenge } from './scopes.js';
import {
  DEFAULT_LEGACY_VERSION,
  ErrorCode,
  errorMessage,
  isLegacyVersion,
  isThenable,
  type JsonObject,
  type Message,
  messageKind,
  type NotificationMessage,
  type RequestId,
  type RequestMessage,
  type ResponseMessage,
  type RpcErrorBody,
  resultMessage,
} from './wire.js';

/** A method the engine serves. */
export interface MethodDefinition {
  /** The eras that have it: a 2025-only method is "not found" on 2026-07-28, and the other way round. */
  readonly eras: 'both' | 'modern' | 'legacy';
  /** The declaration the request names, resolved before middleware runs (`ctx.target`). */
  readonly resolve?: (call: Call) => Target | undefined;
  readonly run: (call: Call) => Promise<JsonObject> | JsonObject;
}

/** How the engine answers a request: the JSON-RPC response, and what HTTP needs besides. */
export interface Answer {
  readonly message: ResponseMessage;
  /** The HTTP status (200 unless a refusal says otherwise). */
  readonly status: number;
  /**
   * HTTP response headers set by middleware or a refusal: name/value pairs in one flat list, lower-case
   * names, each once (`['ratelimit', '"api";r=9;t=6']`), the form node:http's `writeHead` takes as it is.
   */
  readonly headers: HeaderList | undefined;
  /** An HTTP body to send instead of `message` (an OAuth error body), when the response has not started. */
  readonly httpBody?: unknown;
}

/** What the engine is built from (see `createServer`). */
export interface EngineOptions {
  readonly info: { readonly name: string; readonly version: string } & Readonly<Record<string, unknown>>;
  readonly instructions: string | undefined;
  /** The server's own `_meta`, sent with `initialize` and `server/discover` results. */
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
  readonly logger: Logger;
  readonly catalog: Catalog;
  readonly authenticator: HttpAuthenticator | undefined;
  readonly observers: readonly McpObserver[];
  readonly middleware: readonly MiddlewareEntry[];
  /** Capabilities added by extensions (tasks, skills, plugins), merged into the server's own. */
  readonly capabilities: readonly ServerCapabilities[];
  /** Items per page of the list methods; `undefined`: whole lists. */
  readonly pageSize?: number | undefined;
}

/** The engine of one server. */
export class Engine {
  readonly info: EngineOptions['info'];
  readonly instructions: string | undefined;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly logger: Logger;
  readonly catalog: Catalog;
  readonly pageSize: number | undefined;
  readonly #authenticator: HttpAuthenticator | undefined;
  readonly #closeHooks: (() => void)[] = [];
  readonly #observers: readonly McpObserver[];
  readonly #middleware: MiddlewareEntry[];
  readonly #methods = new Map<
    string,
    { readonly definition: MethodDefinition; run: (call: Call) => JsonObject | Promise<JsonObject> }
  >();
  readonly #connections = new Set<Connection>();
  readonly #notificationHandlers = new Map<
    string,
    (message: NotificationMessage, inbound: Inbound) => void
  >();
  /** What the server advertises; `resources.subscribe` only to clients that keep a connection. */
  readonly #capabilities: ServerCapabilities;
  readonly #statelessCapabilities: ServerCapabilities;
  /** The server info every 2026 result carries: without icons, which `server/discover` alone sends. */
  readonly #stamp: JsonObject;
  #closed = false;

  constructor(options: EngineOptions) {
    this.info = options.info;
    const { icons: _icons, ...brief } = options.info;
    this.#stamp = brief;
    this.instructions = options.instructions;
    this.meta = options.meta;
    this.logger = options.logger;
    this.catalog = options.catalog;
    this.pageSize = options.pageSize;
    this.#authenticator = options.authenticator;
    this.#observers = options.observers;
    // Scopes are checked before the chain (`#run`): a refused request reaches no middleware.
    this.#middleware = [...options.middleware];
    const catalog = options.catalog;
    let capabilities: ServerCapabilities = {
      logging: {},
      ...(catalog.tools.size > 0 && { tools: { listChanged: false } }),
      ...((catalog.fixed.size > 0 || catalog.templates.length > 0) && { resources: { listChanged: false } }),
      ...(catalog.prompts.size > 0 && { prompts: { listChanged: false } }),
      ...(catalog.completions && { completions: {} }),
    };
    for (const extra of options.capabilities) capabilities = mergeCapabilities(capabilities, extra);
    this.#statelessCapabilities = capabilities;
    this.#capabilities = catalog.subscribable
      ? Object.assign({}, capabilities, {
          resources: Object.assign({}, capabilities.resources, { subscribe: true }),
        })
      : capabilities;
  }

  /** Adds a method; the engine composes its middleware chain now. A second definition replaces the first. */
  define(method: string, definition: MethodDefinition): void {
    this.#methods.set(method, { definition, run: compose(method, this.#middleware, runOf(definition)) });
  }

  /** Whether the engine serves `method` (in some era). */
  serves(method: string): boolean {
    return this.#methods.has(method);
  }

  /** Adds a middleware after the others, and composes every method's chain again. */
  use(entry: MiddlewareEntry): void {
    this.#middleware.push(entry);
    for (const [method, entry] of this.#methods)
      entry.run = compose(method, this.#middleware, runOf(entry.definition));
  }

  /** Handles a notification of `method` (after the engine's own handling, if any). */
  onNotification(method: string, handler: (message: NotificationMessage, inbound: Inbound) => void): void {
    this.#notificationHandlers.set(method, handler);
  }

  /** The capabilities advertised to a client; `connected` when updates can reach it later. */
  capabilities(connected: boolean): ServerCapabilities {
    return connected ? this.#capabilities : this.#statelessCapabilities;
  }

  /** Opens a connection (a 2025 session, a stdio link): its state lives until `close()`. */
  connect(options: ConnectionOptions): Connection {
    const connection = new Connection(options);
    this.#connections.add(connection);
    connection.onClose(() => this.#connections.delete(connection));
    const watching = this.#observers.filter((observer) => observer.onSession !== undefined);
    if (watching.length > 0) {
      const observed: ObservedSession = new SessionView(connection);
      connection.observed = observed;
      for (const observer of watching) {
        try {
          const end = observer.onSession?.(observed);
          if (typeof end === 'function') connection.onClose(end);
        } catch (error) {
          this.logger.warn('a request observer failed', { error: messageOf(error) });
        }
      }
    } else if (this.#observers.length > 0) {
      connection.observed = { era: undefined, sessionId: connection.sessionId };
    }
    const asking = this.#observers.filter((observer) => observer.onClientRequest !== undefined);
    if (asking.length > 0) {
      const observeRequest: Connection['observeRequest'] & object = (request) => {
        const finishes: ((outcome: ObservedOutcome) => void)[] = [];
        for (const observer of asking) {
          try {
            const finish = observer.onClientRequest?.(request);
            if (typeof finish === 'function') finishes.push(safe(finish, this.logger));
          } catch (error) {
            this.logger.warn('a request observer failed', { error: messageOf(error) });
          }
        }
        return finishes;
      };
      // Assigned from a const: V8 allocates a function literal assigned straight to a property in the old
      // generation (scripts/check-structure.mjs, rule 4).
      connection.observeRequest = observeRequest;
    }
    return connection;
  }

  /** Every open connection (for change notifications). */
  get connections(): ReadonlySet<Connection> {
    return this.#connections;
  }

  /** Runs `hook` when the engine closes (long-lived streams end gracefully then). */
  onClose(hook: () => void): void {
    this.#closeHooks.push(hook);
  }

  /** Stops serving: long-lived streams end, every connection closes. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const hook of this.#closeHooks.splice(0)) {
      try {
        hook();
      } catch (error) {
        this.logger.warn('closing the engine: a hook failed', { error: messageOf(error) });
      }
    }
    for (const connection of [...this.#connections]) connection.close();
  }

  /** Whether the caller behind `auth` may use something declared with `scopes` (see scopes.ts). */
  allows(auth: AuthInfo | undefined, scopes: readonly string[] | undefined): boolean {
    return scopeChallenge(this.#authenticator, scopes, auth) === undefined;
  }

  /** A stable key for the principal behind `auth`: the authenticator's `principalOf`, else its client id. */
  principalOf(auth: AuthInfo | undefined): string {
    if (auth === undefined) return '';
    return this.#authenticator?.principalOf?.(auth) ?? auth.clientId;
  }

  /** The 2025 version a request without a connection is served at. */
  legacyVersionOf(inbound: Inbound): string {
    const requested = inbound.requestedVersion;
    return requested !== undefined && isLegacyVersion(requested) ? requested : DEFAULT_LEGACY_VERSION;
  }

  /**
   * Handles one message: a request is answered (`undefined` only when the client cancelled it), a
   * notification or an answer to a server request is taken in (`undefined`). The message must have been
   * classified (`classifyEra`); a batch is split by the transport.
   */
  handle(message: unknown, inbound: Inbound): Promise<Answer | undefined> | undefined {
    switch (messageKind(message)) {
      case 'request':
        return this.#request(message as RequestMessage, inbound);
      case 'notification':
        this.#notification(message as NotificationMessage, inbound);
        return undefined;
      case 'result':
      case 'error':
        (inbound.connection as Connection | undefined)?.settle(message as ResponseMessage);
        return undefined;
      default:
        return Promise.resolve({
          message: errorMessage(null, {
            code: ErrorCode.InvalidRequest,
            message: 'Bad Request: the request body is not a valid JSON-RPC message',
          }),
          status: 400,
          headers: undefined,
        });
    }
  }

  /**
   * What a request would be refused with before it runs, without running it: the declaration it names
   * resolved and its scopes checked (`undefined` when it may go on). A transport answering a batch checks
   * every request of it first, so that a refused batch runs nothing.
   */
  async preflight(message: unknown, inbound: Inbound): Promise<Answer | undefined> {
    if (messageKind(message) !== 'request') return undefined;
    const { id, method, params } = message as RequestMessage;
    const definition = this.#methods.get(method)?.definition;
    if (definition?.resolve === undefined) return undefined;
    const call = new Call(this, id, method, params, inbound);
    try {
      call.target = definition.resolve(call);
      const challenge = scopeChallenge(this.#authenticator, call.target?.declaration.scopes, call.auth);
      if (challenge === undefined) return undefined;
      throw await insufficientScope(challenge, call.auth as AuthInfo);
    } catch (error) {
      return this.#errorAnswer(call, error);
    }
  }

  // Not async (a promise less per request): `#serve` ends the call's bookkeeping itself.
  #request(message: RequestMessage, inbound: Inbound): Promise<Answer | undefined> {
    const { id, method } = message;
    const entry = this.#methods.get(method);
    const eras = entry?.definition.eras;
    if (entry === undefined || (eras !== 'both' && eras !== inbound.era) || this.#closed) {
      const answer = {
        message: errorMessage(id, { code: ErrorCode.MethodNotFound, message: 'Method not found' }),
        // The modern HTTP entry answers a method it does not serve 404, as the SDK's does.
        status: inbound.era === 'modern' && inbound.headers !== undefined ? 404 : 200,
        headers: undefined,
      };
      if (this.#observers.length > 0) this.#observeUnserved(message, inbound, answer.message);
      return Promise.resolve(answer);
    }
    const call = new Call(this, id, method, message.params, inbound);
    call.connection?.track(id, call);
    if (this.#observers.length === 0) return this.#serve(call, entry.definition, entry.run);
    try {
      return this.#observed(call, message, entry.definition, entry.run);
    } catch (error) {
      done(call);
      return Promise.reject(error);
    }
  }

  #serve(
    call: Call,
    definition: MethodDefinition,
    run: (call: Call) => JsonObject | Promise<JsonObject>,
  ): Promise<Answer | undefined> {
    const served = this.#run(call, definition, run, undefined);
    return served instanceof Promise ? served : Promise.resolve(served);
  }

  /**
   * A call's answer: at once when its method answers at once, else from one `then` of its promise (an async
   * function and its `await` were two promises a call more, and every promise also runs each async hook the
   * process has — OpenTelemetry's `AsyncLocalStorage` context manager on Node 20). The declaration's scopes
   * are checked first: a caller who lacks them reaches no middleware. `finishes` (observers) are told in
   * that `then`; an answer made at once is told by the caller, once every observer has handed its finish.
   */
  #run(
    call: Call,
    definition: MethodDefinition,
    run: (call: Call) => JsonObject | Promise<JsonObject>,
    finishes: Finish[] | undefined,
  ): Answer | undefined | Promise<Answer | undefined> {
    let ran: JsonObject | Promise<JsonObject>;
    try {
      if (definition.resolve !== undefined) {
        const target = definition.resolve(call);
        call.target = target;
        const challenge = scopeChallenge(this.#authenticator, target?.declaration.scopes, call.auth);
        if (challenge !== undefined) {
          return insufficientScope(challenge, call.auth as AuthInfo).then((refusal) =>
            this.#ended(call, true, refusal, finishes),
          );
        }
      }
      ran = run(call);
    } catch (error) {
      return this.#ended(call, true, error, undefined);
    }
    if (!isThenable(ran)) return this.#ended(call, false, ran, undefined);
    return Promise.resolve(ran).then(
      (result) => this.#ended(call, false, result, finishes),
      (error: unknown) => this.#ended(call, true, error, finishes),
    );
  }

  /** A call's answer from its result (or what it threw); the call is done, and its observers told. */
  #ended(call: Call, threw: boolean, value: unknown, finishes: Finish[] | undefined): Answer | undefined {
    let answer: Answer | undefined;
    try {
      answer = threw ? this.#failed(call, value) : this.#answer(call, value as JsonObject);
    } finally {
      done(call);
    }
    if (finishes !== undefined) finishRequest(finishes, outcomeOf(answer), this.logger);
    return answer;
  }

  #answer(call: Call, result: JsonObject): Answer | undefined {
    if (call.connection !== undefined && call.aborted) return undefined;
    try {
      const encoded =
        call.era === 'modern'
          ? encodeModern(call.method, result, call.method === 'server/discover' ? this.info : this.#stamp)
          : result;
      return { message: resultMessage(call.id, encoded), status: 200, headers: call.responseHeaders };
    } catch (error) {
      return this.#failed(call, error);
    }
  }

  #failed(call: Call, error: unknown): Answer | undefined {
    // A request the client cancelled on its connection is not answered (the SDK's rule).
    if (call.connection !== undefined && call.aborted) return undefined;
    return this.#errorAnswer(call, error);
  }

  /** The request inside the observers' dispatch (`PluginContext.observe`), which are told how it ended. */
  #observed(
    call: Call,
    message: RequestMessage,
    definition: MethodDefinition,
    run: (call: Call) => JsonObject | Promise<JsonObject>,
  ): Promise<Answer | undefined> {
    const finishes: Finish[] = [];
    let served: Answer | undefined | Promise<Answer | undefined>;
    observeRequest(
      this.#observers,
      this.#observedRequest(message, call.inbound),
      () => {
        served = this.#run(call, definition, run, finishes);
      },
      this.logger,
      finishes,
    );
    if (served instanceof Promise) return served;
    // Answered inside the dispatch: every observer has handed its finish now.
    finishRequest(finishes, outcomeOf(served), this.logger);
    return Promise.resolve(served);
  }

  #observeUnserved(message: RequestMessage, inbound: Inbound, response: ResponseMessage): void {
    const finishes: Finish[] = [];
    observeRequest(this.#observers, this.#observedRequest(message, inbound), () => {}, this.logger, finishes);
    finishRequest(
      finishes,
      'error' in response ? { error: response.error } : { result: response.result },
      this.logger,
    );
  }

  #observedRequest(message: RequestMessage, inbound: Inbound): ObservedRequest {
    return new RequestView(message, inbound);
  }

  /** A thrown error as the answer the client gets. */
  #errorAnswer(call: Call, error: unknown): Answer {
    const headers = call.responseHeaders;
    if (
      error instanceof RequestRefusedError ||
      (PierError.isInstance(error) && error.code === 'REQUEST_REFUSED')
    ) {
      const refusal = error as RequestRefusedError;
      const body: RpcErrorBody = {
        code: refusal.rpcCode,
        message: refusal.message,
        ...(refusal.data !== undefined && { data: refusal.data }),
      };
      const http = refusal.http;
      return {
        message: errorMessage(call.id, body),
        status: http?.status ?? 200,
        headers:
          http?.headers === undefined
            ? headers
            : addHeaders(headers === undefined ? [] : [...headers], http.headers, true),
        ...(http?.body !== undefined && { httpBody: http.body }),
      };
    }
    const body = this.errorBody(call, error);
    const status = body.code === ErrorCode.MissingRequiredClientCapability ? 400 : 200;
    return { message: errorMessage(call.id, body), status, headers };
  }

  /** The JSON-RPC error a thrown value becomes: protocol errors as they are, anything else -32603. */
  errorBody(call: Call, error: unknown): RpcErrorBody {
    if (error instanceof MissingClientCapabilityError && call.era === 'modern') {
      const data = { requiredCapabilities: error.requiredCapabilities };
      const typed = new MissingRequiredClientCapabilityError(data as never, error.message);
      return { code: typed.code, message: typed.message, data };
    }
    if (isProtocolError(error)) {
      return {
        code: error.code,
        message: error.message,
        ...(error.data !== undefined && { data: error.data }),
      };
    }
    this.logger.warn(`${call.method} failed`, { error: messageOf(error) });
    return { code: ErrorCode.InternalError, message: clientMessage(error) };
  }

  #notification(message: NotificationMessage, inbound: Inbound): void {
    const connection = inbound.connection as Connection | undefined;
    if (this.#observers.length > 0) {
      const notification = {
        method: message.method,
        params: message.params,
        era: inbound.era,
        headers: headersOf(inbound),
        session: connection?.observed,
      };
      for (const observer of this.#observers) {
        try {
          observer.onNotification?.(notification);
        } catch (error) {
          this.logger.warn('a request observer failed', { error: messageOf(error) });
        }
      }
    }
    if (message.method === 'notifications/cancelled') {
      const requestId = message.params?.requestId;
      if ((typeof requestId === 'string' || typeof requestId === 'number') && connection !== undefined) {
        connection.cancel(requestId, message.params?.reason ?? 'cancelled');
      }
    }
    const handler = this.#notificationHandlers.get(message.method);
    if (handler !== undefined) {
      try {
        handler(message, inbound);
      } catch (error) {
        this.logger.warn(`${message.method} failed`, { error: messageOf(error) });
      }
    }
  }

  /** Sends `message` to every open connection `accepts` (change notifications). */
  broadcast(message: Message, accepts: (connection: Connection) => boolean): void {
    for (const connection of this.#connections) {
      if (!accepts(connection)) continue;
      try {
        connection.send(message);
      } catch (error) {
        this.logger.debug('change not delivered', { error: messageOf(error) });
      }
    }
  }
}

// The method's own run, as it is: `async (call) => run(call)` made two promises a call (its own, and the one
// that adopts the handler's). A value or a throw at once goes to the caller (`#run`, the middleware chain).
function runOf(definition: MethodDefinition): (call: Call) => JsonObject | Promise<JsonObject> {
  return definition.run;
}

/** How a request ended, as observers are told. */
function outcomeOf(answer: Answer | undefined): ObservedOutcome {
  return answer === undefined
    ? { error: { code: ErrorCode.ConnectionClosed, message: 'Request cancelled' } }
    : 'result' in answer.message
      ? { result: answer.message.result }
      : { error: answer.message.error };
}

function isProtocolError(error: unknown): error is ProtocolError {
  return (
    error instanceof ProtocolError ||
    (ProtocolError as unknown as { isInstance(value: unknown): boolean }).isInstance(error)
  );
}

/** `finish`, logging what it throws instead of throwing it. */
function safe(
  finish: (outcome: ObservedOutcome) => void,
  logger: Logger,
): (outcome: ObservedOutcome) => void {
  return (outcome) => {
    try {
      finish(outcome);
    } catch (error) {
      logger.warn('a request observer failed', { error: messageOf(error) });
    }
  };
}

/** The request's headers for observers: none off HTTP (see observed-headers.ts). */
// The observers' views are classes, so that their lazy properties are getters on a prototype. A getter in
// an object literal gives each object its own hidden class, kept in V8's old generation: its closure, and
// the call and request it reaches, then survive young-generation collections until a full one (see
// transport-http's inbound.ts, where this cost ~1 MB promoted per young collection at 1,000 calls a second).

/** A request as observers see it; its headers become a web `Headers` only if one reads them. */
class RequestView implements ObservedRequest {
  readonly method: string;
  readonly id: RequestId;
  readonly params: JsonObject | undefined;
  readonly era: 'modern' | 'legacy';
  readonly sessionId: string | undefined;
  readonly authInfo: AuthInfo | undefined;
  readonly session: ObservedSession | undefined;
  readonly #inbound: Inbound;
  #headers: Headers | undefined | null = null;

  constructor(message: RequestMessage, inbound: Inbound) {
    const connection = inbound.connection as Connection | undefined;
    this.method = message.method;
    this.id = message.id;
    this.params = message.params;
    this.era = inbound.era;
    this.sessionId = connection?.sessionId;
    this.authInfo = inbound.authInfo;
    this.session = connection?.observed;
    this.#inbound = inbound;
  }

  get headers(): Headers | undefined {
    if (this.#headers === null) this.#headers = headersOf(this.#inbound);
    return this.#headers;
  }
}

/** A connection as observers see it: its era is known once it initialized. */
class SessionView implements ObservedSession {
  readonly sessionId: string | undefined;
  readonly #connection: Connection;

  constructor(connection: Connection) {
    this.#connection = connection;
    this.sessionId = connection.sessionId;
  }

  get era(): 'modern' | 'legacy' | undefined {
    return this.#connection.era;
  }
}

function headersOf(inbound: Inbound): Headers | undefined {
  return observedHeaders(inbound.headers, inbound.allHeaders);
}

/** Capabilities merged key by key, one level deep. */
export function mergeCapabilities(base: ServerCapabilities, extra: ServerCapabilities): ServerCapabilities {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = merged[key];
    merged[key] =
      typeof current === 'object' && current !== null && typeof value === 'object' && value !== null
        ? Object.assign({}, current, value)
        : value;
  }
  return merged as ServerCapabilities;
}

/** A call is answered: nothing more goes on its stream, and its connection no longer tracks it. */
function done(call: Call): void {
  call.answered = true;
  call.connection?.untrack(call.id, call);
}
