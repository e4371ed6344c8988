// Request observers (PluginContext.observe): every message an SDK server receives, and how each request
// ended, seen at the transport boundary — so tracing and metrics cover every method and both eras without
// core knowing about either. Servers built without observers are not wrapped at all.
import type { JSONRPCMessage, McpServer, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';
import type { McpObserver, ObservedOutcome, ObservedRequest } from './contract.js';
import { messageOf } from './errors.js';
import type { Logger } from './logger.js';

/** Makes `server` report to `observers` whatever transport it is connected to. */
export function observeServer(
  server: McpServer,
  observers: readonly McpObserver[],
  era: 'modern' | 'legacy' | undefined,
  logger: Logger,
): void {
  const connect = server.connect.bind(server);
  server.connect = (transport: Transport) => connect(observedTransport(transport, observers, era, logger));
}

function observedTransport(
  inner: Transport,
  observers: readonly McpObserver[],
  era: 'modern' | 'legacy' | undefined,
  logger: Logger,
): Transport {
  /** Requests received and not answered yet: what to tell when the answer goes out. */
  const open = new Map<string | number, ((outcome: ObservedOutcome) => void)[]>();
  const settle = (message: JSONRPCMessage) => {
    if ('method' in message || !('id' in message)) return;
    const id = message.id;
    if (id === undefined || id === null) return;
    const finishes = open.get(id);
    if (finishes === undefined) return;
    open.delete(id);
    const outcome: ObservedOutcome =
      'error' in message ? { error: message.error } : { result: (message as { result: unknown }).result };
    for (const finish of finishes) safely(logger, () => finish(outcome));
  };
  const receive = (
    deliver: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void,
    message: JSONRPCMessage,
    extra: MessageExtraInfo | undefined,
  ) => {
    if (!('method' in message)) {
      deliver(message, extra);
      return;
    }
    if (!('id' in message)) {
      for (const observer of observers) {
        safely(logger, () =>
          observer.onNotification?.({ method: message.method, params: message.params, era }),
        );
      }
      deliver(message, extra);
      return;
    }
    const request: ObservedRequest = {
      method: message.method,
      id: message.id,
      params: message.params,
      era,
      sessionId: inner.sessionId,
      headers: extra?.request?.headers,
      authInfo: extra?.authInfo,
    };
    const finishes: ((outcome: ObservedOutcome) => void)[] = [];
    open.set(message.id, finishes);
    // Each observer wraps the next one's dispatch, so a tracer's context surrounds the handler.
    let dispatch = () => deliver(message, extra);
    for (const observer of [...observers].reverse()) {
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
  };
  return new Proxy(inner, {
    set(target, key, value) {
      if (key === 'onmessage' && typeof value === 'function') {
        const deliver = value as (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
        target.onmessage = (message, extra) => receive(deliver, message, extra);
        return true;
      }
      return Reflect.set(target, key, value);
    },
    get(target, key) {
      if (key === 'send') {
        return (message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]) => {
          settle(message);
          return target.send(message, options);
        };
      }
      const value = Reflect.get(target, key);
      // Transports keep private state: their methods must run on themselves, not on the proxy.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function safely(logger: Logger, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    logger.warn('a request observer failed', { error: messageOf(error) });
  }
}
