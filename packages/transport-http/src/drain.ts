import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '@pier/core/transport';

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
 * sockets. On the hot path a request costs a set entry and a shared listener, no closure; the exchange
 * object the MCP endpoint needs is made only for its requests (a plugin route never streams).
 */
export class ExchangeTracker {
  #inFlight = 0;
  #waiters: (() => void)[] = [];
  readonly #streams = new Set<TrackedExchange>();
  readonly #sockets = new Set<Socket>();
  /** Responses not closed yet, so that draining can mark those not started with `Connection: close`. */
  readonly #open = new Set<ServerResponse>();
  readonly #onClose = (res: TrackedResponse): void => {
    this.#open.delete(res);
    const exchange = res[EXCHANGE];
    if (exchange !== undefined) {
      if (exchange.end !== undefined) exchange.end = undefined;
      if (exchange.longLived) return;
    }
    if (--this.#inFlight === 0) this.#wake();
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
  begin(res: ServerResponse): void {
    this.#inFlight++;
    this.#open.add(res);
    res.on('close', this.#listener);
  }

  /** The exchange of a response `begin` tracks, made on first use (the MCP endpoint's requests). */
  exchange(res: ServerResponse): Exchange {
    const tracked = res as TrackedResponse;
    let exchange = tracked[EXCHANGE];
    if (exchange === undefined) {
      exchange = new TrackedExchange(this.#streams);
      tracked[EXCHANGE] = exchange;
    }
    return exchange;
  }

  /** Every response still open whose headers are not sent yet gets `Connection: close`. */
  closeUnstarted(): void {
    for (const res of this.#open) if (!res.headersSent) res.setHeader('connection', 'close');
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

  /** One listener for every response: `close` is emitted on the response itself. */
  #makeListener(): (this: TrackedResponse) => void {
    const onClose = this.#onClose;
    return function (this: TrackedResponse) {
      onClose(this);
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

/**
 * How long idle connections stay open once the listener closed, for requests already on their way. Long
 * enough for a client on the same machine or network, short next to any shutdown budget.
 */
const IDLE_CONNECTION_GRACE_MS = 250;

/** What {@link drainServer} stops, and the steps it takes in between. */
export interface DrainPlan {
  readonly server: Server;
  readonly tracker: ExchangeTracker;
  readonly logger: Logger;
  /** How long MCP requests are still served. */
  readonly delayMs: number;
  readonly shutdownTimeoutMs: number;
  /** Waits out the drain delay (tests end it when they choose). */
  readonly waitDelay: (ms: number) => Promise<void>;
  /** Draining began. */
  readonly beginDraining: () => void;
  /** The delay is over: refuse new MCP work. */
  readonly refuseMcp: () => void;
  /** Aborts what is still in flight in the SDK and closes every session. */
  readonly closeEndpoint: () => Promise<void>;
}

/**
 * Drains and closes: MCP keeps being served for the drain delay, then the listener closes, requests in
 * flight get up to the shutdown timeout, streams are ended and the remaining sockets destroyed.
 */
export async function drainServer(plan: DrainPlan): Promise<void> {
  const { server, tracker, logger } = plan;
  plan.beginDraining();
  await plan.waitDelay(plan.delayMs);
  plan.refuseMcp();
  // Closing the listening socket resets every connection still in the kernel's accept queue: the client
  // had completed its handshake and may have written its request, so it cannot tell a refusal from a
  // lost request. The timer above fires before this loop turn's poll phase; waiting for the check phase
  // lets that poll accept whatever is queued (those requests are read and answered 503), which leaves
  // only connections completed in the microseconds between poll and check to be reset.
  await nextTurn();
  const listenerClosed = closeListener(server);
  // Idle connections (kept-alive ones, and ones just accepted whose first request has not come yet) are
  // closed only after a short grace: a request already sent on one would otherwise be reset (the client
  // sees ECONNRESET or "other side closed"). Within the grace it is read and answered (503 for MCP) with
  // Connection: close. A request sent after the grace can only be retried by the client.
  await nextTurn();
  await nextTurn();
  if (tracker.openSockets > 0) await delay(IDLE_CONNECTION_GRACE_MS);
  server.closeIdleConnections();
  const settled = await tracker.settle(plan.shutdownTimeoutMs);
  if (!settled) {
    logger.warn('shutdown timeout reached; cutting requests still in flight', {
      inFlight: tracker.inFlight,
    });
  }
  tracker.endStreams();
  await plan.closeEndpoint();
  server.closeAllConnections();
  tracker.destroySockets();
  await listenerClosed;
}

/**
 * Stops accepting connections. `server.close()` alone would also destroy every idle keep-alive socket at
 * once (node ≥ 19 calls `this.closeIdleConnections()` in it); that is left to the caller, so it is
 * skipped for this one call.
 */
function closeListener(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  server.closeIdleConnections = () => {};
  try {
    server.close();
  } finally {
    delete (server as { closeIdleConnections?: unknown }).closeIdleConnections;
  }
  return closed;
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
