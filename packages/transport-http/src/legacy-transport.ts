import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  type DirectCallOutcome,
  type EventStore,
  isInitializeRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
  OAuthError,
  OAuthErrorCode,
  parseJSONRPCMessage,
  type RequestId,
  type ScopeChallengeHandler,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
} from '@pier/core/transport';
import { Channel } from './channel.js';
import type { Exchange } from './drain.js';
import { headerValue, JSONRPC } from './json-errors.js';

/** Options of {@link LegacyTransport}. */
export interface LegacyTransportOptions {
  /** The session id to issue on initialize; without it the transport is stateless (one exchange). */
  readonly sessionId?: string;
  /** Makes streams resumable: every event gets an id and is kept for `Last-Event-ID` replay. */
  readonly eventStore?: EventStore;
  /** Sent as the SSE `retry` field of priming events. */
  readonly retryMs?: number;
}

const STANDALONE = '_GET_stream';
const MAX_BATCH = 100;

/** A request the direct path is answering (see {@link LegacyTransport.answerDirect}). */
interface DirectRequest {
  readonly res: ServerResponse;
  readonly exchange: Exchange;
  /** The client cancelled it (`notifications/cancelled`): as the SDK server does, it gets no answer. */
  cancelled: boolean;
  /** The transport closed meanwhile and ended its response, as it ends every request's stream. */
  ended: boolean;
}

/**
 * The 2025-era streamable HTTP transport, node-native: the SDK's `Server` stays the protocol engine and
 * this replaces `WebStandardStreamableHTTPServerTransport` beneath it, answer for answer (same statuses,
 * error codes and messages, same session, stream, replay and batch rules), without converting each
 * exchange to web `Request`/`Response` streams. A quick answer goes out as one JSON body; the response
 * becomes an SSE stream only when the server says something before its answer, or when streams are
 * resumable (then every stream starts with a priming event).
 *
 * Longer than this package's other files on purpose: it follows the SDK class it stands in for method by
 * method, so that the two can be read side by side when the SDK changes.
 */
export class LegacyTransport implements Transport {
  sessionId: string | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  readonly #issuedId: string | undefined;
  readonly #eventStore: EventStore | undefined;
  readonly #retryMs: number | undefined;
  #versions: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
  #scopeChallenge: ScopeChallengeHandler | undefined;
  #started = false;
  #initialized = false;
  #closed = false;
  #streamCount = 0;
  /** Connected responses by stream id. */
  readonly #channels = new Map<string, Channel>();
  /** The stream each request's answer belongs to (kept while its stream is disconnected). */
  readonly #requestStreams = new Map<RequestId, string>();
  /** The requests of each stream still waiting for an answer, in order. */
  readonly #streamRequests = new Map<string, RequestId[]>();
  /** Answers held until every request of their stream is answered. */
  readonly #answers = new Map<RequestId, JSONRPCMessage>();
  /** Requests the direct path is answering, by id (made on first use: an idle session holds no map). */
  #direct: Map<RequestId, DirectRequest> | undefined;

  constructor(options: LegacyTransportOptions = {}) {
    this.#issuedId = options.sessionId;
    this.#eventStore = options.eventStore;
    this.#retryMs = options.retryMs;
  }

  /** Whether an initialize request was accepted (a session exists from then on). */
  get initialized(): boolean {
    return this.#initialized;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('Transport already started');
    this.#started = true;
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.#versions = versions;
  }

  /**
   * Called by the SDK's `McpServer.connect`: decides, per request, whether the caller lacks the scopes of the
   * tool, resource or prompt it names. As the SDK's transport does, a challenged batch is answered 403 as a
   * whole, before any of it is dispatched.
   */
  setScopeChallengeResolver(resolver: ScopeChallengeHandler): void {
    this.#scopeChallenge = resolver;
  }

  /**
   * Serves a POST whose body was read and parsed already. `request` is what handlers see as `ctx.http.req`;
   * `parsed` is the body already checked with `parseJSONRPCMessage`, when the caller did that; `authInfo`
   * is who the authenticator says is calling (handlers see it as `ctx.http.authInfo`).
   */
  async handlePost(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    exchange: Exchange,
    request: Request,
    parsed?: readonly JSONRPCMessage[],
    authInfo?: AuthInfo,
  ): Promise<void> {
    if (this.#closed) return refuse(res, this.#headers(), 404, JSONRPC.sessionNotFound, 'Session not found');
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      const message = 'Not Acceptable: Client must accept both application/json and text/event-stream';
      return this.#refuse(res, 406, JSONRPC.serverError, message);
    }
    if (Array.isArray(body) && body.length > MAX_BATCH) {
      const message = `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`;
      return this.#refuse(res, 400, JSONRPC.invalidRequest, message);
    }
    let messages: readonly JSONRPCMessage[];
    try {
      messages =
        parsed ?? (Array.isArray(body) ? body.map(parseJSONRPCMessage) : [parseJSONRPCMessage(body)]);
    } catch {
      return this.#refuse(res, 400, JSONRPC.parseError, 'Parse error: Invalid JSON-RPC message');
    }
    // The method is checked first only to spare the schema check on every other message.
    const initialize = messages.find(
      (m) => (m as { method?: unknown }).method === 'initialize' && isInitializeRequest(m),
    );
    if (initialize !== undefined) {
      if (this.#initialized && this.#issuedId !== undefined) {
        return this.#refuse(res, 400, JSONRPC.invalidRequest, 'Invalid Request: Server already initialized');
      }
      if (messages.length > 1) {
        const message = 'Invalid Request: Only one initialization request is allowed';
        return this.#refuse(res, 400, JSONRPC.invalidRequest, message);
      }
      this.sessionId = this.#issuedId;
      this.#initialized = true;
    } else if (this.#refusedSessionOrVersion(req, res)) {
      return;
    }

    const requests = messages.filter(isRequestLike);
    if (authInfo !== undefined && this.#scopeChallenge !== undefined && requests.length > 0) {
      if (await this.#challenged(res, requests, authInfo)) return;
    }
    if (this.#direct !== undefined && this.#direct.size > 0) {
      for (const message of messages) this.#noteCancelled(message, this.#direct);
    }
    const extra: MessageExtraInfo = authInfo === undefined ? { request } : { request, authInfo };
    if (requests.length === 0) {
      for (const message of messages) this.onmessage?.(message, extra);
      res.writeHead(202, { ...this.#headers(), 'content-length': '0' });
      res.end();
      return;
    }

    // Stream ids are part of event ids when streams are resumable; otherwise only this transport sees them.
    const streamId =
      this.#eventStore === undefined
        ? String(++this.#streamCount)
        : process.getBuiltinModule('node:crypto').randomUUID();
    const version =
      (initialize as { params?: { protocolVersion?: string } } | undefined)?.params?.protocolVersion ??
      headerValue(req, 'mcp-protocol-version') ??
      DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
    const resumable = this.#eventStore !== undefined && this.#supportsPriming(version);
    const channel = new Channel(res, this.#headers(), exchange, () => this.#disconnected(streamId, channel));
    this.#channels.set(streamId, channel);
    for (const message of requests) this.#requestStreams.set(message.id, streamId);
    this.#streamRequests.set(
      streamId,
      requests.map((message) => message.id),
    );
    if (resumable) {
      const primingId = await (this.#eventStore as EventStore).storeEvent(streamId, {} as JSONRPCMessage);
      if (this.#closed) return;
      channel.prime(primingId, this.#retryMs);
    }
    for (const message of messages) {
      if (resumable && isRequestLike(message)) {
        // As the SDK does: only requests of a resumable stream may close it (SEP-1699 polling).
        this.onmessage?.(message, {
          ...extra,
          closeSSEStream: () => this.closeSSEStream(message.id),
          closeStandaloneSSEStream: () => this.closeStandaloneSSEStream(),
        });
      } else {
        this.onmessage?.(message, extra);
      }
    }
  }

  /**
   * Whether a POST of the single request `id` with these headers would reach the session's server at once
   * and be answered with one JSON body: the session is initialized and open, the headers pass every check
   * {@link handlePost} makes (`Accept`, session id, protocol version), streams are not resumable (then the
   * answer would follow a priming event), and no request with this id is in flight. Writes nothing.
   */
  acceptsDirect(req: IncomingMessage, id: RequestId): boolean {
    if (this.#closed || !this.#initialized || this.#issuedId === undefined) return false;
    if (this.#eventStore !== undefined || this.#requestStreams.has(id) || this.#direct?.has(id) === true) {
      return false;
    }
    const headers = req.headers;
    const accept = headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false;
    if (headers['mcp-session-id'] !== this.sessionId) return false;
    const version = headers['mcp-protocol-version'];
    return version === undefined || (typeof version === 'string' && this.#versions.includes(version));
  }

  /**
   * Answers request `id`, accepted by {@link acceptsDirect}, with what the direct path computed: the bytes
   * {@link send} writes for the server's answer (one JSON body with the session id). Meanwhile the request
   * behaves as one the server is serving: a `notifications/cancelled` for it means no answer (its response
   * stays open, as the SDK server leaves it), and closing the transport ends its response like every
   * request's. Resolves with the result the SDK must write instead (core's replay), or `undefined`.
   */
  async answerDirect(
    res: ServerResponse,
    exchange: Exchange,
    id: RequestId,
    outcome: Promise<DirectCallOutcome>,
  ): Promise<{ readonly result: unknown } | undefined> {
    const pending: DirectRequest = { res, exchange, cancelled: false, ended: false };
    this.#direct ??= new Map();
    const inFlight = this.#direct;
    inFlight.set(id, pending);
    let settled: DirectCallOutcome;
    try {
      settled = await outcome;
    } finally {
      if (inFlight.get(id) === pending) inFlight.delete(id);
    }
    if (pending.ended) return undefined;
    if (pending.cancelled) {
      // The SDK server drops the answer of a cancelled request; its stream waits until either side leaves.
      const streamId = String(++this.#streamCount);
      const channel = new Channel(res, this.#headers(), exchange, () =>
        this.#disconnected(streamId, channel),
      );
      this.#channels.set(streamId, channel);
      this.#requestStreams.set(id, streamId);
      this.#streamRequests.set(streamId, [id]);
      return undefined;
    }
    if ('replay' in settled) return { result: settled.replay };
    if (res.destroyed) return undefined;
    const body = JSON.stringify({ result: settled.result, jsonrpc: '2.0', id });
    res.writeHead(200, {
      ...this.#headers(),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
    return undefined;
  }

  /** Serves the GET that opens the session's stream for server-initiated messages (or resumes one). */
  async handleGet(req: IncomingMessage, res: ServerResponse, exchange: Exchange): Promise<void> {
    if (this.#closed) return refuse(res, this.#headers(), 404, JSONRPC.sessionNotFound, 'Session not found');
    if (!(req.headers.accept ?? '').includes('text/event-stream')) {
      const message = 'Not Acceptable: Client must accept text/event-stream';
      return this.#refuse(res, 406, JSONRPC.serverError, message);
    }
    if (this.#refusedSessionOrVersion(req, res)) return;
    const lastEventId = headerValue(req, 'last-event-id');
    if (this.#eventStore !== undefined && lastEventId !== undefined) {
      return this.#replay(this.#eventStore, lastEventId, res, exchange);
    }
    if (this.#channels.has(STANDALONE)) {
      return this.#refuse(
        res,
        409,
        JSONRPC.serverError,
        'Conflict: Only one SSE stream is allowed per session',
      );
    }
    const channel = new Channel(res, this.#headers(), exchange, () =>
      this.#disconnected(STANDALONE, channel),
    );
    this.#channels.set(STANDALONE, channel);
    channel.stream();
  }

  /** Serves the DELETE that ends the session. */
  async handleDelete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.#closed) return refuse(res, this.#headers(), 404, JSONRPC.sessionNotFound, 'Session not found');
    if (this.#refusedSessionOrVersion(req, res)) return;
    res.writeHead(200, { ...this.#headers(), 'content-length': '0' });
    res.end();
    await this.close();
  }

  async send(message: JSONRPCMessage, options?: { relatedRequestId?: RequestId }): Promise<void> {
    // Messages handed to send() come from the SDK server, well-formed: their shape is enough to sort them
    // (the SDK's schema guards cost a full parse of every result).
    const isAnswer = !('method' in message) && ('result' in message || 'error' in message);
    const requestId = isAnswer ? (message as { id: RequestId }).id : options?.relatedRequestId;
    if (requestId === undefined) {
      if (isAnswer) {
        throw new Error(
          'Cannot send a response on a standalone SSE stream unless resuming a previous client request',
        );
      }
      const eventId = await this.#eventStore?.storeEvent(STANDALONE, message);
      this.#channels.get(STANDALONE)?.event(JSON.stringify(message), eventId);
      return;
    }
    const streamId = this.#requestStreams.get(requestId);
    if (streamId === undefined)
      throw new Error(`No connection established for request ID: ${String(requestId)}`);
    const eventId = await this.#eventStore?.storeEvent(streamId, message);
    const channel = this.#channels.get(streamId);
    if (!isAnswer) {
      channel?.event(JSON.stringify(message), eventId);
      return;
    }
    this.#answers.set(requestId, message);
    if (channel?.streaming) channel.event(JSON.stringify(message), eventId);
    const related = this.#streamRequests.get(streamId) ?? [requestId];
    if (!related.every((id) => this.#answers.has(id))) return;
    this.#streamRequests.delete(streamId);
    const answers = related.map((id) => this.#answers.get(id) as JSONRPCMessage);
    for (const id of related) {
      this.#answers.delete(id);
      this.#requestStreams.delete(id);
    }
    this.#channels.delete(streamId);
    if (channel === undefined) {
      if (this.#eventStore === undefined) {
        this.onerror?.(
          new Error(
            `Response for request ID ${String(requestId)} is undeliverable: per-request stream is disconnected and no eventStore is configured`,
          ),
        );
      }
      return;
    }
    if (channel.streaming) channel.end();
    else channel.json(200, JSON.stringify(answers.length === 1 ? answers[0] : answers));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const channels = [...this.#channels.values()];
    this.#channels.clear();
    this.#answers.clear();
    this.#streamRequests.clear();
    for (const channel of channels) channel.end();
    const direct = this.#direct === undefined ? [] : [...this.#direct.values()];
    this.#direct?.clear();
    for (const pending of direct) {
      pending.ended = true;
      new Channel(pending.res, this.#headers(), pending.exchange, () => {}).end();
    }
    this.onclose?.();
  }

  /** Ends the SSE stream of a request so that the client reconnects and resumes it (SEP-1699 polling). */
  closeSSEStream(requestId: RequestId): void {
    const streamId = this.#requestStreams.get(requestId);
    if (streamId === undefined) return;
    const channel = this.#channels.get(streamId);
    this.#channels.delete(streamId);
    channel?.end();
  }

  /** Ends the session's GET stream so that the client reconnects. */
  closeStandaloneSSEStream(): void {
    const channel = this.#channels.get(STANDALONE);
    this.#channels.delete(STANDALONE);
    channel?.end();
  }

  async #replay(
    store: EventStore,
    lastEventId: string,
    res: ServerResponse,
    exchange: Exchange,
  ): Promise<void> {
    try {
      let known: string | undefined;
      if (store.getStreamIdForEventId !== undefined) {
        known = await store.getStreamIdForEventId(lastEventId);
        if (known === undefined)
          return this.#refuse(res, 400, JSONRPC.serverError, 'Invalid event ID format');
        if (this.#channels.has(known)) {
          const message = 'Conflict: Stream already has an active connection';
          return this.#refuse(res, 409, JSONRPC.serverError, message);
        }
      }
      let streamId = known ?? STANDALONE;
      const channel = new Channel(res, this.#headers(), exchange, () =>
        this.#disconnected(streamId, channel),
      );
      channel.stream();
      streamId = await store.replayEventsAfter(lastEventId, {
        send: async (eventId, message) => channel.event(JSON.stringify(message), eventId),
      });
      if (this.#closed || !channel.open) {
        channel.end();
        return;
      }
      this.#channels.get(streamId)?.end();
      const live = streamId === STANDALONE || this.#streamRequests.has(streamId);
      if (live) this.#channels.set(streamId, channel);
      else channel.end();
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      if (!res.headersSent) this.#refuse(res, 500, JSONRPC.serverError, 'Error replaying events');
      else res.end();
    }
  }

  /** Marks the direct request a `notifications/cancelled` names as cancelled. */
  #noteCancelled(message: JSONRPCMessage, inFlight: Map<RequestId, DirectRequest>): void {
    if ((message as { method?: unknown }).method !== 'notifications/cancelled' || 'id' in message) return;
    const requestId = (message as { params?: { requestId?: RequestId } }).params?.requestId;
    const pending = requestId === undefined ? undefined : inFlight.get(requestId);
    if (pending !== undefined) pending.cancelled = true;
  }

  /** Session and protocol-version checks of every request but initialize; answers and returns `true` on failure. */
  #refusedSessionOrVersion(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.#issuedId !== undefined) {
      if (!this.#initialized) {
        this.#refuse(res, 400, JSONRPC.serverError, 'Bad Request: Server not initialized');
        return true;
      }
      const id = headerValue(req, 'mcp-session-id');
      if (id === undefined) {
        this.#refuse(res, 400, JSONRPC.serverError, 'Bad Request: Mcp-Session-Id header is required');
        return true;
      }
      if (id !== this.sessionId) {
        this.#refuse(res, 404, JSONRPC.sessionNotFound, 'Session not found');
        return true;
      }
    }
    const version = headerValue(req, 'mcp-protocol-version');
    if (version !== undefined && !this.#versions.includes(version)) {
      const message = `Bad Request: Unsupported protocol version: ${version} (supported versions: ${this.#versions.join(', ')})`;
      this.#refuse(res, 400, JSONRPC.serverError, message);
      return true;
    }
    return false;
  }

  /** A stream's client went away: its answers are kept for replay (with an event store) or dropped. */
  /** Answers 403 `insufficient_scope` when a request of the batch needs scopes the caller lacks. */
  async #challenged(
    res: ServerResponse,
    requests: readonly (JSONRPCMessage & { id: RequestId })[],
    authInfo: AuthInfo,
  ): Promise<boolean> {
    const resolve = this.#scopeChallenge as ScopeChallengeHandler;
    for (const request of requests) {
      const challenge = await resolve({ request: request as never, authInfo });
      if (challenge === undefined) continue;
      // The SDK's own answer (header grammar, quoting, OAuth error body), as on the 2026-07-28 path.
      const answer = bearerAuthChallengeResponse(
        new OAuthError(OAuthErrorCode.InsufficientScope, challenge.errorDescription ?? 'Insufficient scope'),
        {
          requiredScopes: [...challenge.scopes],
          ...(authInfo.resourceMetadataUrl !== undefined && {
            resourceMetadataUrl: authInfo.resourceMetadataUrl,
          }),
        },
      );
      const body = await answer.text();
      this.onerror?.(new Error('Forbidden: insufficient scope'));
      res.writeHead(answer.status, {
        ...this.#headers(),
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'cache-control': 'no-store',
        'www-authenticate': answer.headers.get('www-authenticate') ?? 'Bearer error="insufficient_scope"',
      });
      res.end(body);
      return true;
    }
    return false;
  }

  #disconnected(streamId: string, channel: Channel): void {
    if (this.#channels.get(streamId) === channel) this.#channels.delete(streamId);
  }

  /** Priming events need an empty `data`, which clients handle from 2025-11-25 on. */
  #supportsPriming(version: string): boolean {
    return this.#versions.includes(version) && version >= '2025-11-25';
  }

  #headers(): Record<string, string> {
    return this.sessionId === undefined ? {} : { 'mcp-session-id': this.sessionId };
  }

  #refuse(res: ServerResponse, status: number, code: number, message: string): void {
    this.onerror?.(new Error(message));
    refuse(res, this.#headers(), status, code, message);
  }
}

function refuse(
  res: ServerResponse,
  headers: Record<string, string>,
  status: number,
  code: number,
  message: string,
): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/** Requests (as opposed to notifications and answers): what a response must wait for. */
function isRequestLike(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } {
  // Messages were validated by parseJSONRPCMessage already: a method and an id make a request.
  return 'method' in message && 'id' in message;
}
