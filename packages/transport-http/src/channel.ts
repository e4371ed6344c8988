import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Exchange } from './drain.js';

/** Interval of the SSE keep-alive comment: proxies commonly cut a connection idle for 30–60 s. */
export const SSE_KEEP_ALIVE_MS = 15_000;

const KEEP_ALIVE_FRAME = ': keepalive\n\n';

/**
 * A client that stops reading while the server keeps sending would make node buffer without end: past
 * this much unsent data the stream is cut (a resumable client reconnects and replays what it missed).
 */
export const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/**
 * One HTTP response of the 2025-era transport, answered node-natively: a single JSON body when everything
 * to say is known at once, or an SSE stream as soon as something has to be said before the end (a progress
 * notification, a server-to-client request, a resumable stream). No web streams in between.
 */
export class Channel {
  readonly #res: ServerResponse;
  readonly #headers: Record<string, string>;
  #sse = false;
  #ended = false;
  #keepAlive: NodeJS.Timeout | undefined;
  #corked: Socket | undefined;
  readonly #uncork = () => {
    const socket = this.#corked;
    this.#corked = undefined;
    socket?.uncork();
  };

  /**
   * @param headers sent with the status line either way (the session id, CORS headers are set on `res`).
   * @param onDisconnect called once if the client goes away before the response ended.
   */
  constructor(
    res: ServerResponse,
    headers: Record<string, string>,
    exchange: Exchange,
    onDisconnect: () => void,
  ) {
    this.#res = res;
    this.#headers = headers;
    exchange.end = () => this.end();
    res.once('close', () => {
      const early = !this.#ended;
      this.#ended = true;
      this.#stopKeepAlive();
      exchange.end = undefined;
      if (early) onDisconnect();
    });
  }

  /** Whether the response can still carry something. */
  get open(): boolean {
    return !this.#ended && !this.#res.destroyed;
  }

  /** Whether the response is (or has become) an SSE stream. */
  get streaming(): boolean {
    return this.#sse;
  }

  /** Turns the response into an SSE stream now (status line sent at once). */
  stream(): void {
    if (this.#sse || this.#ended) return;
    this.#sse = true;
    this.#res.writeHead(200, {
      ...this.#headers,
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    this.#res.flushHeaders();
    this.#keepAlive = setInterval(() => this.#write(KEEP_ALIVE_FRAME), SSE_KEEP_ALIVE_MS);
    this.#keepAlive.unref();
  }

  /** Writes one SSE event (upgrading the response to a stream if needed). */
  event(data: string, id?: string): void {
    if (!this.open) return;
    this.stream();
    this.#write(
      id === undefined ? `event: message\ndata: ${data}\n\n` : `event: message\nid: ${id}\ndata: ${data}\n\n`,
    );
  }

  /** Writes the priming event of a resumable stream: an id and no data (SEP-1699). */
  prime(id: string, retryMs: number | undefined): void {
    if (!this.open) return;
    this.stream();
    this.#write(retryMs === undefined ? `id: ${id}\ndata: \n\n` : `id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /** Answers with one JSON body (only before anything was streamed). */
  json(status: number, body: string): void {
    this.respond(
      status,
      { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      body,
    );
  }

  /** Answers with `body` and these headers, besides the channel's own (only before anything was streamed). */
  respond(status: number, headers: Readonly<Record<string, string>>, body: string): void {
    if (!this.open) return;
    if (this.#sse) throw new Error('Channel: a JSON body cannot follow an SSE stream');
    this.#ended = true;
    this.#res.writeHead(status, { ...this.#headers, ...headers });
    this.#res.end(body);
  }

  /** Ends the response: the end of an SSE stream, or an empty stream when nothing was sent yet. */
  end(): void {
    if (!this.open) return;
    this.stream();
    this.#ended = true;
    this.#stopKeepAlive();
    this.#res.end();
  }

  #write(frame: string): void {
    if (this.#corked === undefined && this.#res.socket !== null) {
      // Frames produced in the same tick (the result and the end that follows it) leave in one write.
      // The socket is corked, not the response: Node 24's response-level cork sends the end of a chunked
      // body before the data corked ahead of it.
      this.#corked = this.#res.socket;
      this.#corked.cork();
      process.nextTick(this.#uncork);
    }
    this.#res.write(frame);
    if (this.#res.writableLength > MAX_BUFFERED_BYTES) this.#res.destroy();
  }

  #stopKeepAlive(): void {
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }
}
