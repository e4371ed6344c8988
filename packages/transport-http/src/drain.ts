import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** One request being answered, as the drain sees it. */
export interface Exchange {
  /**
   * `true` for responses that only end when the client or the server closes them (the GET stream of a
   * session, a `subscriptions/listen` stream): the drain does not wait for them, it ends them.
   */
  longLived: boolean;
  /** Ends an SSE response cleanly; set while one is being streamed. */
  end: (() => void) | undefined;
}

/**
 * Counts what the server is doing so that shutdown can wait for it: requests in flight, open streams and
 * sockets. Cheap enough for the hot path: one closure per request.
 */
export class ExchangeTracker {
  #inFlight = 0;
  #waiters: (() => void)[] = [];
  readonly #exchanges = new Set<Exchange>();
  readonly #sockets = new Set<Socket>();

  /** Requests in flight, not counting long-lived streams. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Open long-lived streams and requests, for diagnostics. */
  get open(): number {
    return this.#exchanges.size;
  }

  addSocket(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  /** Starts tracking a response, as a request in flight, until it closes (finished or cut). */
  begin(res: ServerResponse): Exchange {
    const exchange: Exchange = { longLived: false, end: undefined };
    this.#exchanges.add(exchange);
    this.#inFlight++;
    res.once('close', () => {
      this.#exchanges.delete(exchange);
      if (!exchange.longLived && --this.#inFlight === 0) this.#wake();
    });
    return exchange;
  }

  /** The exchange turned out to be a long-lived stream: shutdown will end it rather than wait for it. */
  promote(exchange: Exchange): void {
    if (exchange.longLived) return;
    exchange.longLived = true;
    if (--this.#inFlight === 0) this.#wake();
  }

  /**
   * Resolves `true` once no request is in flight (long-lived streams aside), or `false` when `timeoutMs`
   * passed first. Leaves no timer behind either way.
   */
  settle(timeoutMs: number): Promise<boolean> {
    if (this.#inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((other) => other !== waiter);
        resolve(false);
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** Ends every SSE response still open (clients see a clean end of stream). */
  endStreams(): void {
    for (const exchange of [...this.#exchanges]) exchange.end?.();
  }

  /** Destroys every socket still open. */
  destroySockets(): void {
    for (const socket of [...this.#sockets]) socket.destroy();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter();
  }
}

/** Waits `ms` (at once for 0). */
export function delay(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms));
}
