import {
  type Answer,
  type AuthInfo,
  type EngineConnection,
  type EventStore,
  type JSONRPCMessage,
  LEGACY_VERSIONS,
  type Logger,
  type McpEngine,
  type Message,
  type RequestId,
} from '@pier/core/transport';
import { answerBody, jsonHeaderList } from './answers.js';
import { Channel } from './channel.js';
import { messageOf } from './errors.js';
import type { HttpExchange } from './exchange.js';
import { HttpInbound } from './inbound.js';
import { JSONRPC, jsonError, jsonHeaders } from './json-errors.js';
import { without } from './maps.js';

/** Options of {@link LegacyTransport}. */
export interface LegacyTransportOptions {
  readonly engine: McpEngine;
  readonly logger: Logger;
  /** The session's engine connection; without one the transport is stateless (one exchange). */
  readonly connection?: EngineConnection;
  /** Makes streams resumable: every event gets an id and is kept for `Last-Event-ID` replay. */
  readonly eventStore?: EventStore;
  /** Sent as the SSE `retry` field of priming events. */
  readonly retryMs?: number;
  /** Called once when the transport closes (DELETE, expiry, shutdown). */
  readonly onClose?: () => void;
}

const STANDALONE = '_GET_stream';
const MAX_BATCH = 100;
/** The version a 2025-era request that names none is served at (the SDK's default). */
const DEFAULT_VERSION = '2025-03-26';
const VERSIONS: ReadonlySet<string> = new Set(LEGACY_VERSIONS);

/**
 * The 2025-era streamable HTTP transport, node-native, in front of the engine: the same statuses, error
 * codes and messages as the SDK's transport, the same session, stream, replay and batch rules. A quick
 * answer goes out as one JSON body; the response becomes an SSE stream only when something is said before
 * the answer (a progress notification, a question for the client), or when streams are resumable (then
 * every stream starts with a priming event). A question a call asks goes on that call's stream; the GET
 * stream carries only what belongs to no call.
 */
export class LegacyTransport {
  readonly #engine: McpEngine;
  readonly #logger: Logger;
  readonly #connection: EngineConnection | undefined;
  readonly #sessionId: string | undefined;
  readonly #eventStore: EventStore | undefined;
  readonly #retryMs: number | undefined;
  readonly #onClose: (() => void) | undefined;
  #initialized = false;
  #closed = false;
  #streamCount = 0;
  // The maps below gain and lose entries with every request for as long as the session lives: their
  // deletions go through `without` (maps.ts), which drops a map once it empties.
  /** Connected responses by stream id (the GET stream's apart: it stays while POSTs come and go). */
  #channels = new Map<string, Channel>();
  #standalone: Channel | undefined;
  /** The stream each request's answer belongs to (kept while its stream is disconnected). */
  #requestStreams = new Map<RequestId, string>();
  /** The requests of each stream still waiting for an answer, in order. */
  #streamRequests = new Map<string, RequestId[]>();
  /** Answers held until every request of their stream is answered (`null`: no answer, it was cancelled). */
  #answers = new Map<RequestId, Answer | null>();
  /** Event stores write in order: each stored event waits for the one before (none yet: no promise). */
  #storing: Promise<unknown> | undefined;

  constructor(options: LegacyTransportOptions) {
    this.#engine = options.engine;
    this.#logger = options.logger;
    this.#connection = options.connection;
    this.#sessionId = options.connection?.sessionId;
    this.#eventStore = options.eventStore;
    this.#retryMs = options.retryMs;
    this.#onClose = options.onClose;
  }

  /** Whether an initialize request was accepted (a session exists from then on). */
  get initialized(): boolean {
    return this.#initialized;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Serves a POST whose body was read and parsed already; `authInfo` is who the authenticator says is
   * calling.
   */
  // Not async: the everyday POST (one request) is served without a promise of its own; a batch's
  // preflight and a resumable stream's priming event go on in a `then`.
  handlePost(exchange: HttpExchange, body: unknown, authInfo?: AuthInfo): Promise<void> | undefined {
    const res = exchange;
    if (this.#closed) {
      refuse(res, this.#headers(), 404, JSONRPC.sessionNotFound, 'Session not found');
      return undefined;
    }
    const accept = exchange.header('accept') ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      const message = 'Not Acceptable: Client must accept both application/json and text/event-stream';
      this.#refuse(res, 406, JSONRPC.serverError, message);
      return undefined;
    }
    if (Array.isArray(body) && body.length > MAX_BATCH) {
      const message = `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`;
      this.#refuse(res, 400, JSONRPC.invalidRequest, message);
      return undefined;
    }
    const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
    if (!messages.every(isMessage)) {
      this.#refuse(res, 400, JSONRPC.parseError, 'Parse error: Invalid JSON-RPC message');
      return undefined;
    }
    const initialize = messages.find((m) => (m as { method?: unknown }).method === 'initialize' && 'id' in m);
    let version = exchange.header('mcp-protocol-version');
    if (initialize !== undefined) {
      if (this.#initialized && this.#sessionId !== undefined) {
        this.#refuse(res, 400, JSONRPC.invalidRequest, 'Invalid Request: Server already initialized');
        return undefined;
      }
      if (messages.length > 1) {
        const message = 'Invalid Request: Only one initialization request is allowed';
        this.#refuse(res, 400, JSONRPC.invalidRequest, message);
        return undefined;
      }
      this.#initialized = true;
      const requested = (initialize as { params?: { protocolVersion?: unknown } }).params?.protocolVersion;
      version = typeof requested === 'string' ? requested : undefined;
    } else if (this.#refusedSessionOrVersion(exchange)) {
      return undefined;
    }
    const post: Post = {
      exchange,
      messages,
      requests: messages.filter(isRequest),
      version,
      requestedVersion: version ?? DEFAULT_VERSION,
      authInfo,
      base: undefined,
    };
    if (post.requests.length > 1) {
      return this.#preflight(post).then((refused) => (refused ? undefined : this.#post(post)));
    }
    return this.#post(post);
  }

  /**
   * What a notification or a batch's preflight runs with (no stream of its own, no signal); made only when
   * one is there: a lone request, the usual POST, needs none.
   */
  #baseInbound(post: Post): HttpInbound {
    post.base ??= HttpInbound.legacy(
      post.exchange,
      post.requestedVersion,
      post.authInfo,
      this.#connection,
      false,
    );
    return post.base;
  }

  /** A batch with a request the caller may not make is refused whole, before any of it runs. */
  async #preflight(post: Post): Promise<boolean> {
    for (const message of post.requests) {
      const refusal = await this.#engine.preflight(message, this.#baseInbound(post));
      if (refusal !== undefined && refusal.status !== 200) {
        const { status, headers, body } = answerBody(refusal, this.#headers());
        post.exchange.respond(status, headers, body);
        return true;
      }
    }
    return false;
  }

  #post(post: Post): Promise<void> | undefined {
    const { exchange, messages, requests, version } = post;
    if (requests.length === 0) {
      for (const message of messages) void this.#engine.handle(message, this.#baseInbound(post));
      exchange.respond(202, Object.assign(this.#headers(), { 'content-length': '0' }), '');
      return undefined;
    }

    // Stream ids are part of event ids when streams are resumable; otherwise only this transport sees them.
    const streamId = this.#eventStore === undefined ? String(++this.#streamCount) : crypto.randomUUID();
    const resumable = this.#eventStore !== undefined && version !== undefined && supportsPriming(version);
    const channel = new Channel(exchange, this.#headers(), () => this.#disconnected(streamId, channel));
    this.#channels.set(streamId, channel);
    for (const message of requests) this.#requestStreams.set(message.id, streamId);
    this.#streamRequests.set(
      streamId,
      requests.map((message) => message.id),
    );
    if (resumable) {
      return (this.#eventStore as EventStore).storeEvent(streamId, {} as JSONRPCMessage).then((primingId) => {
        if (this.#closed) return;
        channel.prime(primingId, this.#retryMs);
        this.#serveMessages(post, streamId, channel, true);
      });
    }
    this.#serveMessages(post, streamId, channel, false);
    return undefined;
  }

  /** Hands each message of a POST to the engine; each request's answer goes on the POST's stream. */
  #serveMessages(post: Post, streamId: string, channel: Channel, resumable: boolean): void {
    const { exchange, messages, requests, requestedVersion, authInfo } = post;
    const stateless = this.#connection === undefined;
    const single = requests.length === 1 && messages.length === 1;
    for (const message of messages) {
      if (!isRequest(message)) {
        void this.#engine.handle(message, this.#baseInbound(post));
        continue;
      }
      const id = message.id;
      // A call without a session ends with its response: a stateless handler's signal follows the client.
      const inbound = HttpInbound.legacy(
        exchange,
        requestedVersion,
        authInfo,
        this.#connection,
        stateless,
        (related: Message) => void this.#send(related, id),
        resumable ? () => this.closeSSEStream(id) : undefined,
      );
      const answered = this.#engine.handle(message, inbound) as Promise<Answer | undefined>;
      answered.then(
        (answer) => {
          // A refusal with its own HTTP status (403 insufficient_scope…) is that status when it is all.
          if (answer !== undefined && answer.status !== 200 && single && !channel.streaming && channel.open) {
            this.#forget(streamId, [id]);
            this.#dropChannel(streamId);
            const { status, headers, body } = answerBody(answer, this.#headers());
            channel.respond(status, headers, body);
            return;
          }
          void this.#answer(id, answer ?? null);
        },
        (error: unknown) => {
          this.#logger.error('a request crashed', { error: messageOf(error) });
          void this.#answer(id, null);
        },
      );
    }
  }

  /** Serves the GET that opens the session's stream for server-initiated messages (or resumes one). */
  async handleGet(exchange: HttpExchange): Promise<void> {
    const res = exchange;
    if (this.#closed) return refuse(res, this.#headers(), 404, JSONRPC.sessionNotFound, 'Session not found');
    if (!(exchange.header('accept') ?? '').includes('text/event-stream')) {
      const message = 'Not Acceptable: Client must accept text/event-stream';
      return this.#refuse(res, 406, JSONRPC.serverError, message);
    }
    if (this.#refusedSessionOrVersion(exchange)) return;
    const lastEventId = exchange.header('last-event-id');
    if (this.#eventStore !== undefined && lastEventId !== undefined) {
      return this.#replay(this.#eventStore, lastEventId, exchange);
    }
    if (this.#standalone !== undefined) {
      return this.#refuse(
        res,
        409,
        JSONRPC.serverError,
        'Conflict: Only one SSE stream is allowed per session',
      );
    }
    const channel = new Channel(exchange, this.#headers(), () => this.#disconnected(STANDALONE, channel));
    this.#standalone = channel;
    channel.stream();
  }

  /** Serves the DELETE that ends the session. */
  async handleDelete(exchange: HttpExchange): Promise<void> {
    if (this.#closed) {
      return refuse(exchange, this.#headers(), 404, JSONRPC.sessionNotFound, 'Session not found');
    }
    if (this.#refusedSessionOrVersion(exchange)) return;
    exchange.respond(200, Object.assign(this.#headers(), { 'content-length': '0' }), '');
    await this.close();
  }

  /** Sends what belongs to no call (list changes, updates): on the session's GET stream, when one is open. */
  sendUnrelated(message: Message): void {
    void this.#send(message, undefined);
  }

  /**
   * Routes a message: to the stream of the request it belongs to, or the GET stream. Without an event store
   * it is written at once; with one, once stored (in order: the store's writes are chained).
   */
  async #send(message: Message, requestId: RequestId | undefined): Promise<void> {
    if (this.#closed) return;
    const streamId = requestId === undefined ? STANDALONE : this.#requestStreams.get(requestId);
    if (streamId === undefined) return;
    const eventId = this.#eventStore === undefined ? undefined : await this.#store(streamId, message);
    this.#channel(streamId)?.event(JSON.stringify(message), eventId);
  }

  /**
   * A request is answered (`null`: it gets no answer); once its stream's requests all are, the stream ends.
   * Without an event store, at once (no promise); with one, once the answer is stored.
   */
  #answer(requestId: RequestId, answer: Answer | null): Promise<void> | undefined {
    const streamId = this.#requestStreams.get(requestId);
    if (streamId === undefined || this.#closed) return undefined;
    // The stream it was asked on, as it is now (a stream resumed while the answer is stored replays it).
    const channel = this.#channel(streamId);
    if (answer === null || this.#eventStore === undefined) {
      this.#answered(requestId, answer, streamId, channel, undefined);
      return undefined;
    }
    return this.#store(streamId, answer.message).then((eventId) =>
      this.#answered(requestId, answer, streamId, channel, eventId),
    );
  }

  #answered(
    requestId: RequestId,
    answer: Answer | null,
    streamId: string,
    channel: Channel | undefined,
    eventId: string | undefined,
  ): void {
    if (answer !== null && channel?.streaming === true)
      channel.event(JSON.stringify(answer.message), eventId);
    this.#answers.set(requestId, answer);
    const related = this.#streamRequests.get(streamId) ?? [requestId];
    if (!related.every((id) => this.#answers.has(id))) return;
    const answers = related.map((id) => this.#answers.get(id)).filter((held): held is Answer => held != null);
    this.#forget(streamId, related);
    const current = this.#channel(streamId);
    this.#dropChannel(streamId);
    if (current === undefined) {
      if (this.#eventStore === undefined && answers.length > 0) {
        this.#logger.debug(
          'an answer is undeliverable: its stream is disconnected and no eventStore is configured',
        );
      }
      return;
    }
    if (current.streaming || answers.length === 0) current.end();
    // One answer goes alone (as the SDK sends it, even for a batch with one request); more as an array.
    // The headers middleware set (RateLimit…) go with a single answer, as on the 2026-07-28 path.
    else if (answers.length === 1) {
      const only = answers[0] as Answer;
      const body = JSON.stringify(only.message);
      current.respond(200, jsonHeaderList(only, body), body);
    } else current.json(200, JSON.stringify(answers.map((a) => a.message)));
  }

  #forget(streamId: string, ids: readonly RequestId[]): void {
    this.#streamRequests = without(this.#streamRequests, streamId);
    for (const id of ids) {
      this.#answers = without(this.#answers, id);
      this.#requestStreams = without(this.#requestStreams, id);
    }
  }

  /** The connected response of a stream. */
  #channel(streamId: string): Channel | undefined {
    return streamId === STANDALONE ? this.#standalone : this.#channels.get(streamId);
  }

  #setChannel(streamId: string, channel: Channel): void {
    if (streamId === STANDALONE) this.#standalone = channel;
    else this.#channels.set(streamId, channel);
  }

  #dropChannel(streamId: string): void {
    if (streamId === STANDALONE) this.#standalone = undefined;
    else this.#channels = without(this.#channels, streamId);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const channels = [...this.#channels.values()];
    if (this.#standalone !== undefined) channels.push(this.#standalone);
    this.#channels = new Map();
    this.#standalone = undefined;
    this.#answers = new Map();
    this.#streamRequests = new Map();
    for (const channel of channels) channel.end();
    this.#connection?.close();
    this.#onClose?.();
  }

  /** Ends the SSE stream of a request so that the client reconnects and resumes it (SEP-1699 polling). */
  closeSSEStream(requestId: RequestId): void {
    const streamId = this.#requestStreams.get(requestId);
    if (streamId === undefined) return;
    const channel = this.#channel(streamId);
    this.#dropChannel(streamId);
    channel?.end();
  }

  /** Ends the session's GET stream so that the client reconnects. */
  closeStandaloneSSEStream(): void {
    const channel = this.#standalone;
    this.#standalone = undefined;
    channel?.end();
  }

  #store(streamId: string, message: Message): Promise<string | undefined> {
    const store = this.#eventStore;
    if (store === undefined) return Promise.resolve(undefined);
    const previous = this.#storing ?? Promise.resolve();
    const stored = previous.then(() => store.storeEvent(streamId, message as JSONRPCMessage));
    this.#storing = stored.catch(() => undefined);
    return stored;
  }

  async #replay(store: EventStore, lastEventId: string, exchange: HttpExchange): Promise<void> {
    const res = exchange;
    try {
      let known: string | undefined;
      if (store.getStreamIdForEventId !== undefined) {
        known = await store.getStreamIdForEventId(lastEventId);
        if (known === undefined)
          return this.#refuse(res, 400, JSONRPC.serverError, 'Invalid event ID format');
        if (this.#channel(known) !== undefined) {
          const message = 'Conflict: Stream already has an active connection';
          return this.#refuse(res, 409, JSONRPC.serverError, message);
        }
      }
      let streamId = known ?? STANDALONE;
      const channel = new Channel(exchange, this.#headers(), () => this.#disconnected(streamId, channel));
      channel.stream();
      streamId = await store.replayEventsAfter(lastEventId, {
        send: async (eventId, message) => channel.event(JSON.stringify(message), eventId),
      });
      if (this.#closed || !channel.open) {
        channel.end();
        return;
      }
      this.#channel(streamId)?.end();
      const live = streamId === STANDALONE || this.#streamRequests.has(streamId);
      if (live) this.#setChannel(streamId, channel);
      else channel.end();
    } catch (error) {
      this.#logger.debug('replaying events failed', { error: messageOf(error) });
      if (!res.headersSent) this.#refuse(res, 500, JSONRPC.serverError, 'Error replaying events');
      else res.end();
    }
  }

  /** Session and protocol-version checks of every request but initialize; answers and returns `true` on failure. */
  #refusedSessionOrVersion(exchange: HttpExchange): boolean {
    const res = exchange;
    if (this.#sessionId !== undefined) {
      if (!this.#initialized) {
        this.#refuse(res, 400, JSONRPC.serverError, 'Bad Request: Server not initialized');
        return true;
      }
      const id = exchange.header('mcp-session-id');
      if (id === undefined) {
        this.#refuse(res, 400, JSONRPC.serverError, 'Bad Request: Mcp-Session-Id header is required');
        return true;
      }
      if (id !== this.#sessionId) {
        this.#refuse(res, 404, JSONRPC.sessionNotFound, 'Session not found');
        return true;
      }
    }
    const version = exchange.header('mcp-protocol-version');
    if (version !== undefined && !VERSIONS.has(version)) {
      const message = `Bad Request: Unsupported protocol version: ${version} (supported versions: ${LEGACY_VERSIONS.join(', ')})`;
      this.#refuse(res, 400, JSONRPC.serverError, message);
      return true;
    }
    return false;
  }

  /** A stream's client went away: its answers are kept for replay (with an event store) or dropped. */
  #disconnected(streamId: string, channel: Channel): void {
    if (this.#channel(streamId) === channel) this.#dropChannel(streamId);
  }

  #headers(): Record<string, string> {
    return this.#sessionId === undefined || !this.#initialized ? {} : { 'mcp-session-id': this.#sessionId };
  }

  #refuse(res: HttpExchange, status: number, code: number, message: string): void {
    this.#logger.debug('MCP request refused', { status, error: message });
    refuse(res, this.#headers(), status, code, message);
  }
}

function refuse(
  exchange: HttpExchange,
  headers: Record<string, string>,
  status: number,
  code: number,
  message: string,
): void {
  const body = jsonError(code, message);
  exchange.respond(status, jsonHeaders(body, headers), body);
}

/** Priming events need an empty `data`, which clients handle from 2025-11-25 on. */
function supportsPriming(version: string): boolean {
  return VERSIONS.has(version) && version >= '2025-11-25';
}

/** A JSON-RPC message by shape (strictly checked by the engine). */
function isMessage(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return false;
  if (typeof message.method === 'string')
    return (
      message.params === undefined ||
      (typeof message.params === 'object' && message.params !== null && !Array.isArray(message.params))
    );
  return 'id' in message && ('result' in message || 'error' in message);
}

/** Requests (as opposed to notifications and answers): what a response must wait for. */
function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } {
  return 'method' in message && 'id' in message;
}

/** One POST on its way: its messages, the version it speaks, and the inbound its notifications share. */
interface Post {
  readonly exchange: HttpExchange;
  readonly messages: readonly JSONRPCMessage[];
  readonly requests: readonly (JSONRPCMessage & { id: RequestId })[];
  readonly version: string | undefined;
  readonly requestedVersion: string;
  readonly authInfo: AuthInfo | undefined;
  base: HttpInbound | undefined;
}
