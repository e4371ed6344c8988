// stdio: the SDK's `serveStdio` owns the protocol (it negotiates the era: 2026-07-28 or the 2025
// `initialize` handshake); Pier adds the lifecycle and, on close, a bounded wait for answers owed.
import type { Readable, Writable } from 'node:stream';
import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { RunningTransport, TransportHost } from './transport-contract.js';

/** Options of `listen()` for stdio (the default transport). */
export interface StdioListenOptions {
  readonly transport?: 'stdio';
  /** Default `process.stdin`. */
  readonly stdin?: Readable;
  /** Default `process.stdout`. Only protocol messages are written to it. */
  readonly stdout?: Writable;
}

/** How long `close()` waits on stdio for requests still being answered before cutting them. */
export const STDIO_SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * Serves `host` over stdio. `onEnd` is called when the client ends the connection (stdin closed),
 * not when Pier closes it. The connection's server is told its era, so that a 2026-07-28 one hears resource
 * updates on its `subscriptions/listen` streams.
 */
export function startStdioTransport(
  host: TransportHost,
  options: StdioListenOptions,
  onEnd: () => void,
): RunningTransport {
  const wire = new AnsweringTransport(new StdioServerTransport(options.stdin, options.stdout));
  const handle = serveStdio(({ era }) => host.createMcpServer({ era }), {
    transport: wire,
    onerror: (error) => host.logger.warn('stdio', { error: error.message }),
  });
  let closing = false;
  wire.onEnd = () => {
    if (!closing) onEnd();
  };
  return {
    address: { transport: 'stdio', url: 'stdio:' },
    async close() {
      closing = true;
      const owed = await wire.answered(STDIO_SHUTDOWN_TIMEOUT_MS);
      if (owed > 0) host.logger.warn('closing with requests still unanswered', { unanswered: owed });
      await handle.close();
    },
  };
}

/**
 * A pass-through transport that knows which requests are still owed an answer, so that a graceful
 * close waits until they are written, not merely until their handlers returned.
 */
class AnsweringTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  /** Called after `onclose`, when the connection ended. */
  onEnd?: () => void;
  readonly #inner: StdioServerTransport;
  readonly #owed = new Set<string | number>();
  #wake: (() => void) | undefined;

  constructor(inner: StdioServerTransport) {
    this.#inner = inner;
    inner.onmessage = (message) => {
      if ('method' in message) {
        // A modern subscription stays open for the connection's life: it is not an answer owed.
        if ('id' in message && message.method !== 'subscriptions/listen') this.#owed.add(message.id);
        if (message.method === 'notifications/cancelled') this.#settle(message.params?.requestId);
      }
      this.onmessage?.(message);
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => {
      this.onclose?.();
      this.onEnd?.();
    };
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    try {
      await this.#inner.send(message);
    } finally {
      if (!('method' in message) && 'id' in message) this.#settle(message.id);
    }
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  /** Resolves with how many requests are still unanswered: 0 once all were, more after `timeoutMs`. */
  answered(timeoutMs: number): Promise<number> {
    if (this.#owed.size === 0) return Promise.resolve(0);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(this.#owed.size), timeoutMs);
      this.#wake = () => {
        clearTimeout(timer);
        resolve(0);
      };
    });
  }

  #settle(id: unknown): void {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    this.#owed.delete(id);
    if (this.#owed.size === 0) this.#wake?.();
  }
}
