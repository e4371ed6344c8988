// A connection the engine keeps state for between messages: a 2025 HTTP session or a stdio link. It
// remembers what `initialize` said (capabilities, client, version), the log level the client set, the
// resources it subscribed to, the requests it has in flight (to cancel them), and the requests the server
// sent it (to match their answers). A stateless HTTP request has none.
import type { ClientCapabilities, Implementation, LoggingLevel } from '@modelcontextprotocol/server';
import { PierError } from '../errors.js';
import type { ObservedClientRequest, ObservedOutcome, ObservedSession } from '../plugins/api.js';
import {
  ErrorCode,
  type JsonObject,
  type Message,
  notificationMessage,
  type RequestId,
  type ResponseMessage,
} from './wire.js';

/** Sends a message to the client: the answer to nothing in particular (a GET stream, stdout). */
export type MessageSink = (message: Message) => void;

/** A request in flight, as far as cancelling it goes. */
export interface Abortable {
  abort(reason: unknown): void;
}

/** What a transport gives the engine when it opens a connection. */
export interface ConnectionOptions {
  /** The 2025 HTTP session id; none on stdio. */
  readonly sessionId?: string;
  /**
   * Where messages unrelated to a request go: list changes, resource updates, and a server request when the
   * call that asked has no stream of its own. A session's GET stream (dropped while none is open), stdout.
   */
  readonly send: MessageSink;
  /** `stdio` or `http`: what handlers and middleware see as the transport. */
  readonly transport: string;
}

/** Options of {@link Connection.request}. */
export interface OutgoingRequestOptions {
  /** Sends on the stream of the call that asks (2025: a question belongs to its call's stream). */
  readonly via?: MessageSink | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Default 60 s, the SDK's. */
  readonly timeoutMs?: number | undefined;
}

interface Pending {
  readonly resolve: (result: JsonObject) => void;
  readonly reject: (error: Error) => void;
  readonly timer: ReturnType<typeof setTimeout>;
  readonly cleanup: () => void;
  /** Observers waiting for the client's answer. */
  readonly finishes: readonly ((outcome: ObservedOutcome) => void)[];
}

/** How long the server waits for the client to answer one of its requests. */
export const DEFAULT_CLIENT_REQUEST_TIMEOUT_MS = 60_000;

/** A client's answer to a server request, when it is a JSON-RPC error. */
export class ClientRequestError extends Error {
  override readonly name = 'ClientRequestError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A connection, as its transport holds it (`McpEngine.connect`). */
export interface EngineConnection {
  /** The 2025 HTTP session id, when it is a session. */
  readonly sessionId: string | undefined;
  /** Whether the client's `initialize` was accepted on it. */
  readonly initialized: boolean;
  readonly closed: boolean;
  /** Ends it: requests in flight are cancelled, requests to the client fail. */
  close(): void;
}

/** One connection's state; made by the engine (`Engine.connect`). */
export class Connection implements EngineConnection {
  readonly sessionId: string | undefined;
  readonly transport: string;
  /** Decided by the first message on stdio; `legacy` for a 2025 HTTP session. */
  era: 'modern' | 'legacy' | undefined;
  /** Set by `initialize` (2025). */
  initialized = false;
  protocolVersion: string | undefined;
  clientCapabilities: ClientCapabilities | undefined;
  clientInfo: Implementation | undefined;
  /** `logging/setLevel` (2025): the lowest level the client wants to hear. */
  logLevel: LoggingLevel | undefined;
  /** `resources/subscribe` (2025): URIs this client hears updates of. Made on first use. */
  subscriptions: Set<string> | undefined;
  /** Modern stdio `subscriptions/listen` subscriptions, by request id: they end with the connection. */
  listens: Map<RequestId, () => void> | undefined;
  closed = false;
  /** How observers (`PluginContext.observe`) see this connection; set by the engine when they watch sessions. */
  observed: ObservedSession | undefined;
  /** Tells observers of a request sent to the client; returns what to call with its outcome. Set by the engine. */
  observeRequest: ((request: ObservedClientRequest) => ((outcome: ObservedOutcome) => void)[]) | undefined;
  readonly #sink: MessageSink;
  /** Requests received and not answered yet, by id: `notifications/cancelled` aborts them. */
  #inFlight: Map<RequestId, Abortable> | undefined;
  /** Requests sent to the client and not answered yet. */
  #pending: Map<RequestId, Pending> | undefined;
  #nextId = 0;
  readonly #onClose: (() => void)[] = [];

  constructor(options: ConnectionOptions) {
    this.sessionId = options.sessionId;
    this.transport = options.transport;
    this.#sink = options.send;
  }

  /** Sends a message unrelated to any request (ignored once closed). */
  send(message: Message): void {
    if (!this.closed) this.#sink(message);
  }

  /** Sends a notification unrelated to any request. */
  notify(method: string, params?: JsonObject): void {
    this.send(notificationMessage(method, params));
  }

  /** Tracks a request received on this connection, so that the client can cancel it. */
  track(id: RequestId, controller: Abortable): void {
    this.#inFlight ??= new Map();
    this.#inFlight.set(id, controller);
  }

  untrack(id: RequestId, controller: Abortable): void {
    if (this.#inFlight?.get(id) === controller) this.#forget(id);
  }

  /** `notifications/cancelled` for `id`: its handler's signal aborts. */
  cancel(id: RequestId, reason: unknown): boolean {
    const controller = this.#inFlight?.get(id);
    if (controller === undefined) return false;
    this.#forget(id);
    controller.abort(reason);
    return true;
  }

  /**
   * Stops tracking `id`; the map goes once it is empty. A map kept for the connection's life that gains and
   * loses an entry per request makes V8 replace its hash table every few requests, and a replaced table
   * keeps a pointer to its successor and to what it held, which the young-generation collector then keeps
   * alive (with the calls they reach) until a full collection.
   */
  #forget(id: RequestId): void {
    const inFlight = this.#inFlight;
    if (inFlight === undefined) return;
    if (inFlight.size === 1) this.#inFlight = undefined;
    else inFlight.delete(id);
  }

  /**
   * Sends the client a request (2025: elicitation, sampling, roots) and resolves with its result. Rejects
   * with a {@link ClientRequestError} when the client answers an error, and a `PierError` when it does not
   * answer in time, the signal aborts (the client is told with `notifications/cancelled`), or the
   * connection closes first.
   */
  request(
    method: string,
    params: JsonObject | undefined,
    options: OutgoingRequestOptions = {},
  ): Promise<JsonObject> {
    if (this.closed) return Promise.reject(closedError());
    const id = this.#nextId++;
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const finishes =
      this.observeRequest?.({ method, id, params, era: this.era, session: this.observed }) ?? [];
    return new Promise<JsonObject>((resolve, reject) => {
      this.#pending ??= new Map();
      const pending = this.#pending;
      const onAbort = () => {
        this.#settle(id);
        this.send(
          notificationMessage('notifications/cancelled', {
            requestId: id,
            reason: String(signal?.reason ?? 'cancelled'),
          }),
        );
        reject(
          signal?.reason instanceof Error
            ? signal.reason
            : new PierError('CLIENT_REQUEST_UNAVAILABLE', `${method}: cancelled`),
        );
      };
      const timeoutMs = options.timeoutMs ?? DEFAULT_CLIENT_REQUEST_TIMEOUT_MS;
      const timer = setTimeout(() => {
        this.#settle(id);
        this.send(notificationMessage('notifications/cancelled', { requestId: id, reason: 'timeout' }));
        reject(
          new PierError(
            'CLIENT_REQUEST_UNAVAILABLE',
            `${method}: timed out after ${timeoutMs} ms waiting for the client's answer`,
          ),
        );
      }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      pending.set(id, {
        resolve,
        reject,
        timer,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
        finishes,
      });
      const message = { jsonrpc: '2.0' as const, id, method, ...(params !== undefined && { params }) };
      const via = options.via;
      if (via !== undefined) via(message);
      else this.send(message);
    });
  }

  /** The client answered one of the server's requests; `false` when no request of this id is waiting. */
  settle(message: ResponseMessage): boolean {
    const id = message.id;
    if (id === null) return false;
    const pending = this.#settle(id);
    if (pending === undefined) return false;
    const outcome: ObservedOutcome =
      'result' in message ? { result: message.result } : { error: message.error };
    for (const finish of pending.finishes) finish(outcome);
    if ('result' in message) pending.resolve(message.result);
    else
      pending.reject(new ClientRequestError(message.error.code, message.error.message, message.error.data));
    return true;
  }

  /** Runs `hook` once when the connection closes. */
  onClose(hook: () => void): void {
    if (this.closed) hook();
    else this.#onClose.push(hook);
  }

  /** Ends the connection: requests still in flight abort, requests to the client fail. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.#inFlight?.values() ?? []) controller.abort(closedError());
    this.#inFlight?.clear();
    for (const id of [...(this.#pending?.keys() ?? [])]) {
      const pending = this.#settle(id);
      for (const finish of pending?.finishes ?? []) finish({ error: CONNECTION_CLOSED });
      pending?.reject(closedError());
    }
    for (const hook of this.#onClose.splice(0)) hook();
  }

  #settle(id: RequestId): Pending | undefined {
    const pending = this.#pending?.get(id);
    if (pending === undefined) return undefined;
    this.#pending?.delete(id);
    clearTimeout(pending.timer);
    pending.cleanup();
    return pending;
  }
}

function closedError(): PierError {
  return new PierError('CLIENT_REQUEST_UNAVAILABLE', 'the connection closed before the client answered');
}

/** The JSON-RPC error an answer owed is reported with when its connection closed. */
export const CONNECTION_CLOSED = { code: ErrorCode.ConnectionClosed, message: 'Connection closed' } as const;
