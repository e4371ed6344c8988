import { addHeaders, type HeaderList } from '@pier/core/transport';
import { byteLength, type HeaderMap, type HttpExchange, type ResponseHeaders } from './exchange.js';
import { jsonHeaders } from './json-errors.js';

/** Interval of the SSE keep-alive comment: proxies commonly cut a connection idle for 30–60 s. */
export const SSE_KEEP_ALIVE_MS = 15_000;

const KEEP_ALIVE_FRAME = ': keepalive\n\n';

const SSE_TYPE = 'text/event-stream';

const SSE_HEADERS: HeaderMap = {
  'content-type': SSE_TYPE,
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** Runs `fn` once the current turn of the event loop is done (its I/O callbacks and microtasks). */
const afterTurn: (fn: () => void) => void =
  typeof setImmediate === 'function' ? (fn) => setImmediate(fn) : (fn) => setTimeout(fn, 0);

/**
 * One HTTP response of an MCP exchange: a single JSON body when everything to say is known at once, or an
 * SSE stream as soon as something has to be said before the end (a progress notification, a
 * server-to-client request, a resumable stream).
 *
 * Events that come before the stream was started are held until the current turn of the event loop ends:
 * a call that logs or reports progress and answers at once (the common case) then goes out as one body
 * with its length (no status line flushed on its own, no chunked framing, no keep-alive timer); one that
 * takes longer gets its stream, and the held events, at the end of the turn.
 */
export class Channel {
  readonly #exchange: HttpExchange;
  readonly #headers: HeaderMap;
  /** The response is (or will be, once the held events go out) an SSE stream. */
  #sse = false;
  /** The stream's status line went out. */
  #started = false;
  /** Events held until the end of this turn (see the class's comment). */
  #held: string | undefined;
  #ended = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;

  /**
   * @param headers sent with the status line either way (the session id; CORS headers are set already).
   * @param onDisconnect called once if the client goes away before the response ended.
   */
  constructor(exchange: HttpExchange, headers: HeaderMap, onDisconnect: () => void) {
    this.#exchange = exchange;
    this.#headers = headers;
    // A const first: V8 allocates a function literal assigned straight to a property in the old generation,
    // where it would keep this response alive until a full collection (scripts/check-structure.mjs, rule 4).
    const end = () => this.end();
    exchange.endStream = end;
    exchange.onClose(() => {
      const early = !this.#ended;
      this.#ended = true;
      this.#stopKeepAlive();
      exchange.endStream = undefined;
      if (early) onDisconnect();
    });
  }

  /** Whether the response can still carry something. */
  get open(): boolean {
    return !this.#ended && this.#exchange.writable;
  }

  /** Whether the response is (or has become) an SSE stream. */
  get streaming(): boolean {
    return this.#sse;
  }

  /** Turns the response into an SSE stream now (status line sent at once, held events after it). */
  stream(): void {
    if (this.#started || this.#ended) return;
    this.#sse = true;
    this.#started = true;
    this.#exchange.startStream(Object.assign({}, this.#headers, SSE_HEADERS));
    const keepAlive = setInterval(() => this.#write(KEEP_ALIVE_FRAME), SSE_KEEP_ALIVE_MS);
    // Node and Bun: the timer must not keep the process alive on its own (Deno and Workers have no unref).
    (keepAlive as { unref?: () => void }).unref?.();
    this.#keepAlive = keepAlive;
    const held = this.#held;
    if (held !== undefined) {
      this.#held = undefined;
      this.#write(held);
    }
  }

  /** Writes one SSE event (making the response a stream: held until the end of this turn if not started). */
  event(data: string, id?: string): void {
    if (!this.open) return;
    const frame =
      id === undefined ? `event: message\ndata: ${data}\n\n` : `event: message\nid: ${id}\ndata: ${data}\n\n`;
    if (this.#started) {
      this.#write(frame);
      return;
    }
    this.#sse = true;
    if (this.#held === undefined) {
      this.#held = frame;
      afterTurn(this.#release);
    } else this.#held += frame;
  }

  /** Starts the stream with the held events, unless the response was completed in the meantime. */
  readonly #release = (): void => {
    if (this.#held !== undefined && this.open) this.stream();
  };

  /** Writes the priming event of a resumable stream: an id and no data (SEP-1699). */
  prime(id: string, retryMs: number | undefined): void {
    if (!this.open) return;
    this.stream();
    this.#write(retryMs === undefined ? `id: ${id}\ndata: \n\n` : `id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /** Answers with one JSON body (only before anything was streamed). */
  json(status: number, body: string): void {
    this.respond(status, jsonHeaders(body), body);
  }

  /** Answers with `body` and these headers, besides the channel's own (only before anything was streamed). */
  respond(status: number, headers: ResponseHeaders, body: string): void {
    if (!this.open) return;
    if (this.#sse) throw new Error('Channel: a JSON body cannot follow an SSE stream');
    this.#ended = true;
    this.#exchange.respond(
      status,
      Array.isArray(headers) ? withOwn(this.#headers, headers) : Object.assign({}, this.#headers, headers),
      body,
    );
  }

  /**
   * Ends the response: the end of an SSE stream, or an empty stream when nothing was sent yet; events still
   * held go out as one body with the status line.
   */
  end(): void {
    if (!this.open) return;
    const held = this.#held;
    if (!this.#started && held !== undefined) {
      this.#held = undefined;
      this.#ended = true;
      // A whole body with its length: nothing for a proxy to stream, so none of the stream's own fields
      // (`cache-control: no-transform`, `x-accel-buffering`), which cost Node a few thousand instructions
      // each to validate and write.
      this.#exchange.respond(
        200,
        Object.assign({}, this.#headers, {
          'content-type': SSE_TYPE,
          'content-length': String(byteLength(held)),
        }),
        held,
      );
      return;
    }
    this.stream();
    this.#ended = true;
    this.#stopKeepAlive();
    this.#exchange.end();
  }

  #write(frame: string): void {
    this.#exchange.write(frame);
  }

  #stopKeepAlive(): void {
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }
}

/** A list answer's headers after the channel's own (usually none: the list goes as it is). */
function withOwn(own: HeaderMap, headers: HeaderList): HeaderList {
  for (const _ in own) return addHeaders(addHeaders([], own), headers);
  return headers;
}
