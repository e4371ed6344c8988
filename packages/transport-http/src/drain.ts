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

const EXCHANGE = Symbol('pier.exchange');
type TrackedResponse = ServerResponse & { [EXCHANGE]?: TrackedExchange };

class TrackedExchange implements Exchange {
  longLived = false;
  #end: (() => void) | undefined;
  readonly #streams: Set<TrackedExchange>;

  constructor(streams: Set<TrackedExchange>) {
    this.#streams = streams;
  }

  get end(): (() => void) | undefined {
    return this.#end;
  }

  /** Only exchanges that stream are remembered, so that the drain can end them. */
  set end(end: (() => void) | undefined) {
    this.#end = end;
    if (end === undefined) this.#streams.delete(this);
    else this.#streams.add(this);
  }
}

/**
 * Counts what the server is doing so that shutdown can wait for it: requests in flight, open streams and
 * sockets. On the hot path a request costs an object and a shared listener, no closure.
 */
export class ExchangeTracker {
  #inFlight = 0;
  #waiters: (() => void)[] = [];
  readonly #streams = new Set<TrackedExchange>();
  readonly #sockets = new Set<Socket>();
  readonly #onClose = (exchange: TrackedExchange): void => {
    if (exchange.end !== undefined) exchange.end = undefined;
    if (!exchange.longLived && --this.#inFlight === 0) this.#wake();
  };
  readonly #listener = this.#makeListener();

  /** Requests in flight, not counting long-lived streams. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Connections still open (idle ones included). */
  get openSockets(): number {
    return this.#sockets.size;
  }

  addSocket(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  /** Starts tracking a response, as a request in flight, until it closes (finished or cut). */
  begin(res: ServerResponse): Exchange {
    const exchange = new TrackedExchange(this.#streams);
    (res as TrackedResponse)[EXCHANGE] = exchange;
    this.#inFlight++;
    res.on('close', this.#listener);
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
    for (const exchange of [...this.#streams]) exchange.end?.();
  }

  /** Destroys every socket still open. */
  destroySockets(): void {
    for (const socket of [...this.#sockets]) socket.destroy();
  }

  /** One listener for every response: it finds its exchange on the response itself. */
  #makeListener(): (this: TrackedResponse) => void {
    const onClose = this.#onClose;
    return function (this: TrackedResponse) {
      const exchange = this[EXCHANGE];
      if (exchange !== undefined) onClose(exchange);
    };
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
