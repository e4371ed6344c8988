// The runtime-neutral seam of the HTTP transport: one request and its response, as request handling, the
// MCP endpoint and both protocol eras see it. `NodeExchange` (node-exchange.ts) implements it on node's
// IncomingMessage/ServerResponse for the listener and `createNodeHandler`; `WebExchange` (web-exchange.ts)
// on a web `Request` answered with a `Response`, for `createFetchHandler` on Bun, Deno and Workers.
// Everything above this seam is written once.
import type { HeaderList, HttpRequestHead, HttpRoute } from '@pier/core/transport';

/** The outcome of reading a request body under a size limit. */
export type BodyRead =
  | { readonly ok: true; readonly text: string }
  /** A body a framework parsed already (`express.json()`, Fastify): JSON, not to be parsed again. */
  | { readonly ok: true; readonly parsed: unknown }
  | { readonly ok: false; readonly reason: 'too-large' | 'aborted' };

/**
 * After a 413, this much more of the body is read and thrown away so that the client, still sending, gets
 * to read the answer instead of a connection reset; past it the connection is cut.
 */
export const DISCARD_LIMIT_BYTES = 8 * 1024 * 1024;

/** Response headers as request handling writes them: lower-case names. */
export type HeaderMap = Readonly<Record<string, string>>;

/**
 * The headers of an answer: a record, or name/value pairs in one flat list (an engine answer's form, which
 * node:http's `writeHead` takes as it is). Lower-case names, each once.
 */
export type ResponseHeaders = HeaderMap | HeaderList;

/** One HTTP request and its response, on whatever runtime serves it. */
export interface HttpExchange {
  // The request.
  readonly method: string;
  /** The request target as sent: `/mcp?x=1`, or the absolute form `http://host/mcp` (node only). */
  readonly target: string;
  /**
   * The prefix a mounted handler took off {@link target} (its `basePath`), `''` otherwise: routing uses
   * `target`, messages name the path as the client sent it.
   */
  readonly basePath: string;
  /** An HTTP/1.1 request without `Host` (only node can see one). */
  readonly missingHost: boolean;
  /** The peer's IP address (node's socket); `undefined` where the runtime does not say (a web `Request`). */
  readonly remoteAddress: string | undefined;
  /** A request header by lower-case name; a repeated one reads as HTTP folds it (`a, b`). */
  header(name: string): string | undefined;
  /** What an authenticator reads. */
  head(): HttpRequestHead;
  /** Every request header (what observers read; made only when asked). */
  allHeaders(): Headers;
  /**
   * Reads the body under `limit` bytes and hands it to `onRead` once, at once or later, never with an
   * error (a failed read is a {@link BodyRead} too). `onRead` must not throw.
   */
  readBody(limit: number, onRead: (read: BodyRead) => void): void;
  /**
   * Serves a plugin route: its web-standard `handler`, or on node its `plain` answer when it has one (no
   * web objects, so no fetch implementation loaded). Rejects or throws when the route fails.
   */
  serveRoute(route: HttpRoute): Promise<void> | undefined;

  // The response.
  /** Whether the status line is out (or, on the web, the `Response` was handed over). */
  readonly headersSent: boolean;
  /** Whether the response can still carry something: not ended, and the client did not go away. */
  readonly writable: boolean;
  /** Sets a header of the response to come (CORS, `Connection: close`); ignored once it started. */
  setHeader(name: string, value: string): void;
  /** Answers at once with this status, headers and body. */
  respond(status: number, headers: ResponseHeaders, body: string): void;
  /** Starts an SSE stream: the status line and these headers now, events with {@link write}. */
  startStream(headers: HeaderMap): void;
  /** Writes a piece of a started stream. */
  write(chunk: string): void;
  /** Ends the response (a started stream, or an empty one). */
  end(): void;
  /** Cuts the response: the client sees a reset, or its stream fail. */
  destroy(): void;
  /** Calls `listener` once when the exchange is over: `finished` is `false` when the client went away first. */
  onClose(listener: (finished: boolean) => void): void;
  /** Aborts when the client goes away before the response finished. */
  signal(): AbortSignal;
  /**
   * Answers 413 for a body over `limit`. On node the rest of the body is read and discarded first (up to a
   * bound), or the client would see a reset instead of the answer.
   */
  refuseOversized(body: string, headers: HeaderMap): void;

  // What the drain knows of it (see ExchangeTracker).
  /** A response that only ends when one side closes it (a session's GET stream, a listen stream). */
  readonly longLived: boolean;
  /** Ends an SSE response cleanly; set while one is being streamed. */
  endStream: (() => void) | undefined;
}

/**
 * What every exchange shares with the tracker: whether it is a long-lived stream, and how to end its
 * stream, so that the drain can end streams rather than wait for them.
 */
export abstract class TrackedExchange {
  longLived = false;
  /** This exchange's place in the tracker's open list (`-1`: not there), and in its streams list. */
  openSlot = -1;
  streamSlot = -1;
  basePath = '';
  #endStream: (() => void) | undefined;
  protected readonly tracker: ExchangeTracker;

  constructor(tracker: ExchangeTracker) {
    this.tracker = tracker;
    tracker.begin(this);
  }

  get endStream(): (() => void) | undefined {
    return this.#endStream;
  }

  /** Only exchanges that stream are remembered, so that the drain can end them. */
  set endStream(end: (() => void) | undefined) {
    this.#endStream = end;
    this.tracker.streaming(this, end !== undefined);
  }

  abstract readonly headersSent: boolean;
  abstract setHeader(name: string, value: string): void;

  /** The exchange is over (finished or cut): the tracker stops counting it. */
  protected closed(): void {
    if (this.#endStream !== undefined) this.endStream = undefined;
    this.tracker.end(this);
  }
}

/**
 * Counts what the transport is doing so that shutdown can wait for it: requests in flight and open
 * streams. Sockets are the node listener's own business (drain.ts).
 */
export class ExchangeTracker {
  #inFlight = 0;
  #waiters: (() => void)[] = [];
  // Arrays, each exchange holding its place, rather than Sets: a Set that gains and loses a member on
  // every request makes V8 replace its hash table every few requests, and a replaced table keeps a
  // pointer to its successor and to what it held. Once one of those tables lives long enough to be
  // promoted (it is current across two young collections, say while the server idles), every later
  // table, with every request it held, survives the young collections after it: the server then promotes
  // most of what its requests allocate, and pays for it in pauses, until a full collection.
  readonly #streams: TrackedExchange[] = [];
  /** Exchanges not over yet, so that draining can mark those not started with `Connection: close`. */
  readonly #open: TrackedExchange[] = [];

  /** Requests in flight, not counting long-lived streams. */
  get inFlight(): number {
    return this.#inFlight;
  }

  begin(exchange: TrackedExchange): void {
    this.#inFlight++;
    exchange.openSlot = this.#open.push(exchange) - 1;
  }

  end(exchange: TrackedExchange): void {
    if (!leave(this.#open, exchange, 'openSlot')) return;
    if (exchange.longLived) return;
    if (--this.#inFlight === 0) this.#wake();
  }

  streaming(exchange: TrackedExchange, on: boolean): void {
    if (!on) leave(this.#streams, exchange, 'streamSlot');
    else if (exchange.streamSlot < 0) exchange.streamSlot = this.#streams.push(exchange) - 1;
  }

  /** Every exchange still open whose response has not started gets `Connection: close`. */
  closeUnstarted(): void {
    for (const exchange of this.#open) if (!exchange.headersSent) exchange.setHeader('connection', 'close');
  }

  /** The exchange turned out to be a long-lived stream: shutdown will end it rather than wait for it. */
  promote(exchange: HttpExchange): void {
    if (exchange.longLived) return;
    (exchange as unknown as TrackedExchange).longLived = true;
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
    for (const exchange of [...this.#streams]) exchange.endStream?.();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter();
  }
}

/** Takes `exchange` out of `list` (the last member moves to its place); `false` when it was not there. */
function leave(
  list: TrackedExchange[],
  exchange: TrackedExchange,
  slotOf: 'openSlot' | 'streamSlot',
): boolean {
  const slot = exchange[slotOf];
  if (slot < 0) return false;
  exchange[slotOf] = -1;
  const last = list.pop() as TrackedExchange;
  if (last !== exchange) {
    list[slot] = last;
    last[slotOf] = slot;
  }
  return true;
}

/** Waits `ms` (at once for 0). */
export function delay(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const encoder = /* @__PURE__ */ new TextEncoder();

/** UTF-8 length of `text`: node's `Buffer.byteLength` where there is one, a count elsewhere. */
export function byteLength(text: string): number {
  const buffer = (globalThis as { Buffer?: { byteLength(text: string): number } }).Buffer;
  if (buffer !== undefined) return buffer.byteLength(text);
  return encoder.encode(text).byteLength;
}
