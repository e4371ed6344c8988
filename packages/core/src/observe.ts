// Request observers (PluginContext.observe): every message an SDK server receives, how each request
// ended, the requests it sends the client, and the connection-long sessions — seen at the transport
// boundary, so tracing and metrics cover every method and both eras without core knowing about either.
// Servers built without observers are not wrapped at all.
import type { JSONRPCMessage, McpServer, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';
import type {
  McpObserver,
  ObservedClientRequest,
  ObservedOutcome,
  ObservedRequest,
  ObservedSession,
  ObservedStream,
  ObservedTaskStatus,
} from './contract.js';
import { messageOf } from './errors.js';
import type { Logger } from './logger.js';
import type { SdkServerOptions } from './transport-contract.js';

/** An observer's callback for how a request ended. */
export type Finish = (outcome: ObservedOutcome) => void;

/** What an answer owed when the connection closed is reported as (the SDK's `ConnectionClosed`). */
const CLOSED: ObservedOutcome = { error: { code: -32000, message: 'Connection closed' } };

/** Makes `server` report to `observers` whatever transport it is connected to. */
export function observeServer(
  server: McpServer,
  observers: readonly McpObserver[],
  options: SdkServerOptions,
  logger: Logger,
  observed: ObservedCalls,
): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    const observe = observedTransport(server, transport, observers, options, logger, observed);
    await connect(transport);
    // Once connected, the SDK's handlers are on the transport; messages only flow after start().
    observe();
  };
}

function observedTransport(
  server: McpServer,
  inner: Transport,
  observers: readonly McpObserver[],
  { era, lifetime }: SdkServerOptions,
  logger: Logger,
  observed: ObservedCalls,
): () => void {
  /** Requests received and not answered yet: what to tell when the answer goes out. */
  const open = new Map<string | number, Finish[]>();
  /** Requests sent to the client and not answered yet. */
  const asked = new Map<string | number, Finish[]>();
  // A stdio connection or a 2025 session; a stateless HTTP server lives for one request and is none.
  const session: ObservedSession | undefined =
    lifetime === 'request'
      ? undefined
      : {
          era,
          get sessionId() {
            return inner.sessionId;
          },
        };
  // The direct path reports a call made on this connection (a 2025 session's) with the same session.
  if (session !== undefined) observed.sessions.set(server, session);
  let sessionEnds: (() => void)[] | undefined;
  const startSession = () => {
    if (session === undefined || sessionEnds !== undefined) return;
    sessionEnds = [];
    for (const observer of observers) {
      safely(logger, () => {
        const end = observer.onSession?.(session);
        if (typeof end === 'function') sessionEnds?.push(end);
      });
    }
  };
  let closed = false;
  const closing = () => {
    if (closed) return;
    closed = true;
    for (const pending of [open, asked]) {
      for (const finishes of pending.values()) {
        for (const finish of finishes) safely(logger, () => finish(CLOSED));
      }
      pending.clear();
    }
    for (const end of sessionEnds ?? []) safely(logger, end);
  };
  const settle = (pending: Map<string | number, Finish[]>, message: JSONRPCMessage) => {
    if ('method' in message || !('id' in message)) return false;
    const id = message.id;
    if (id === undefined || id === null) return false;
    const finishes = pending.get(id);
    if (finishes === undefined) return false;
    pending.delete(id);
    const outcome: ObservedOutcome =
      'error' in message ? { error: message.error } : { result: (message as { result: unknown }).result };
    for (const finish of finishes) safely(logger, () => finish(outcome));
    return true;
  };
  const sending = (message: JSONRPCMessage) => {
    if (!('method' in message)) {
      settle(open, message);
      return;
    }
    if (!('id' in message) || message.id === undefined) return;
    const request: ObservedClientRequest = {
      method: message.method,
      id: message.id,
      params: message.params,
      era,
      session,
    };
    const finishes: Finish[] = [];
    for (const observer of observers) {
      safely(logger, () => {
        const finish = observer.onClientRequest?.(request);
        if (typeof finish === 'function') finishes.push(finish);
      });
    }
    if (finishes.length > 0) asked.set(message.id, finishes);
  };
  const receive = (
    deliver: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void,
    message: JSONRPCMessage,
    extra: MessageExtraInfo | undefined,
  ) => {
    startSession();
    if (!('method' in message)) {
      settle(asked, message);
      deliver(message, extra);
      return;
    }
    if (!('id' in message)) {
      const notification = {
        method: message.method,
        params: message.params,
        era,
        headers: extra?.request?.headers,
        session,
      };
      for (const observer of observers) {
        safely(logger, () => observer.onNotification?.(notification));
      }
      deliver(message, extra);
      return;
    }
    // A call the direct path already reported, whose result the SDK writes (a replay): the observers'
    // callbacks wait for that answer here, and the request is not reported twice.
    const webRequest = extra?.request;
    const replayed = webRequest === undefined ? undefined : observed.replays.get(webRequest);
    if (replayed !== undefined) {
      observed.replays.delete(webRequest as object);
      open.set(message.id, replayed);
      deliver(message, extra);
      return;
    }
    const request: ObservedRequest = {
      method: message.method,
      id: message.id,
      params: message.params,
      era,
      sessionId: inner.sessionId,
      headers: webRequest?.headers,
      authInfo: extra?.authInfo,
      session,
    };
    const finishes: Finish[] = [];
    open.set(message.id, finishes);
    observeRequest(observers, request, () => deliver(message, extra), logger, finishes);
  };
  // The transport itself is patched, once connect() has set the SDK's handlers on it: plain property
  // writes, as every connect makes. (A Proxy's traps ran on every property the SDK read and bound a fresh
  // function for each method read; accessors turned each transport into an object of its own shape.)
  return () => {
    const send = inner.send;
    inner.send = (message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]) => {
      sending(message);
      return send.call(inner, message, options);
    };
    const deliver = inner.onmessage;
    if (deliver !== undefined) inner.onmessage = (message, extra) => receive(deliver, message, extra);
    const onclose = inner.onclose;
    inner.onclose = () => {
      closing();
      onclose?.();
    };
  };
}

/**
 * What a transport calls when a long-lived stream opens (`TransportHost.reportStream`), or `undefined`
 * when no observer wants streams.
 */
export function streamReporter(
  observers: readonly McpObserver[],
  logger: Logger,
): ((stream: ObservedStream) => () => void) | undefined {
  const watching = observers.filter((observer) => observer.onStream !== undefined);
  if (watching.length === 0) return undefined;
  return (stream) => {
    const ends: (() => void)[] = [];
    for (const observer of watching) {
      safely(logger, () => {
        const end = observer.onStream?.(stream);
        if (typeof end === 'function') ends.push(end);
      });
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      for (const end of ends) safely(logger, end);
    };
  };
}

/** What tasks call on each status change, or `undefined` when no observer wants them. */
export function taskStatusReporter(
  observers: readonly McpObserver[],
  logger: Logger,
): ((change: ObservedTaskStatus) => void) | undefined {
  const watching = observers.filter((observer) => observer.onTaskStatus !== undefined);
  if (watching.length === 0) return undefined;
  return (change) => {
    for (const observer of watching) safely(logger, () => observer.onTaskStatus?.(change));
  };
}

/**
 * What the direct path (direct-calls.ts) and the SDK servers' observed transports share: the observers'
 * callbacks of calls the direct path reported and the SDK will answer (by the web request it serves them
 * with), and the session each connection-long SDK server reports its requests with.
 */
export interface ObservedCalls {
  readonly replays: WeakMap<object, Finish[]>;
  readonly sessions: WeakMap<McpServer, ObservedSession>;
}

/**
 * Tells every observer that `request` arrived and runs `deliver` inside their dispatches: each observer
 * wraps the next one's, so a tracer's context surrounds the handler. `deliver` runs exactly once, even
 * when an observer throws or never calls its dispatch. The observers' outcome callbacks are pushed onto
 * `finishes` (pass them to {@link finishRequest} once the answer is known).
 */
export function observeRequest(
  observers: readonly McpObserver[],
  request: ObservedRequest,
  deliver: () => void,
  logger: Logger,
  finishes: Finish[],
): void {
  let dispatch = deliver;
  for (let index = observers.length - 1; index >= 0; index -= 1) {
    const observer = observers[index] as McpObserver;
    const next = dispatch;
    dispatch = () => {
      let dispatched = false;
      const once = () => {
        if (dispatched) return;
        dispatched = true;
        next();
      };
      try {
        const finish = observer.onRequest?.(request, once);
        if (typeof finish === 'function') finishes.push(finish);
      } catch (error) {
        logger.warn('a request observer failed', { error: messageOf(error) });
      }
      once();
    };
  }
  dispatch();
}

/** Tells each observer how a request ended; one that throws breaks nothing. */
export function finishRequest(finishes: readonly Finish[], outcome: ObservedOutcome, logger: Logger): void {
  // Called for every observed request: no closure per callback.
  for (const finish of finishes) {
    try {
      finish(outcome);
    } catch (error) {
      logger.warn('a request observer failed', { error: messageOf(error) });
    }
  }
}

function safely(logger: Logger, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    logger.warn('a request observer failed', { error: messageOf(error) });
  }
}
