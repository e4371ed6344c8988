// The exchange seam on node's IncomingMessage/ServerResponse: what the listener and `createNodeHandler`
// hand to request handling. Node-native all the way (no web Request, no web streams) except for plugin
// routes without a `plain` answer, which are web-standard by contract.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { HttpRequestHead, HttpRoute, PlainHttpAnswer } from '@pier/core/transport';
import { readBody, refuseOversizedBody } from './body.js';
import {
  type BodyRead,
  type ExchangeTracker,
  type HeaderMap,
  type HttpExchange,
  type ResponseHeaders,
  TrackedExchange,
} from './exchange.js';
import { serveWebRoute } from './web-route.js';

/**
 * A client that stops reading while the server keeps sending would make node buffer without end: past
 * this much unsent data the stream is cut (a resumable client reconnects and replays what it missed).
 */
export const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

const EXCHANGE = Symbol('pier.exchange');
type TrackedResponse = ServerResponse & { [EXCHANGE]?: NodeExchange };

/** One listener for every response: `close` is emitted on the response itself. */
function onResponseClose(this: TrackedResponse): void {
  this[EXCHANGE]?.responseClosed();
}

/** A request a framework already read (`req.body` set by `express.json()` or Fastify). */
type MaybeParsed = IncomingMessage & { body?: unknown };

/** {@link HttpExchange} on node's request and response. */
export class NodeExchange extends TrackedExchange implements HttpExchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly #target: string | undefined;
  #signal: AbortSignal | undefined;
  #corked: ServerResponse['socket'] = null;
  readonly #uncork = () => {
    const socket = this.#corked;
    this.#corked = null;
    socket?.uncork();
  };

  /** @param target the request target to route by, when not `req.url` (a handler mounted below a base path). */
  constructor(req: IncomingMessage, res: ServerResponse, tracker: ExchangeTracker, target?: string) {
    super(tracker);
    this.req = req;
    this.res = res;
    this.#target = target;
    (res as TrackedResponse)[EXCHANGE] = this;
    res.on('close', onResponseClose);
  }

  /** @internal called by the response's `close`. */
  responseClosed(): void {
    this.closed();
  }

  get method(): string {
    return this.req.method ?? 'GET';
  }

  get target(): string {
    return this.#target ?? this.req.url ?? '';
  }

  get remoteAddress(): string | undefined {
    return this.req.socket.remoteAddress;
  }

  get missingHost(): boolean {
    return this.req.headers.host === undefined && this.req.httpVersion === '1.1';
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  /**
   * Node keeps only the first of a repeated `Authorization` in `req.headers`; here a repeated one reads as
   * HTTP folds it (`a, b`), so that an authenticator can refuse it.
   */
  head(): HttpRequestHead {
    return {
      method: this.method,
      url: this.target === '' ? '/' : this.target,
      header: (name) => (name === 'authorization' ? authorization(this.req) : this.header(name)),
      basePath: this.basePath,
    };
  }

  allHeaders(): Headers {
    const headers = new Headers();
    for (const [name, value] of Object.entries(this.req.headers)) {
      if (value === undefined) continue;
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    return headers;
  }

  readBody(limit: number, onRead: (read: BodyRead) => void): void {
    const req = this.req as MaybeParsed;
    // Mounted behind a body parser: the stream is spent, the parsed JSON is what there is.
    if (req.body !== undefined && (req.readableEnded || req.complete)) {
      onRead({ ok: true, parsed: req.body });
      return;
    }
    readBody(req, limit, onRead);
  }

  serveRoute(route: HttpRoute): Promise<void> | undefined {
    const plain = route.plain;
    if (plain === undefined) return serveWebRoute(route.handler, this.req, this.res);
    const answer = plain(this.head());
    if ('then' in answer) return answer.then((settled) => this.#writePlain(settled));
    this.#writePlain(answer);
    return undefined;
  }

  /** Writes a route's plain answer after the headers already set (CORS, `Connection: close`). */
  #writePlain(answer: PlainHttpAnswer): void {
    const res = this.res;
    if (res.destroyed || res.headersSent) return;
    const headers = answer.headers;
    for (const name in headers) res.setHeader(name, headers[name] as string);
    res.statusCode = answer.status;
    const body = answer.body;
    if (body === undefined || this.req.method === 'HEAD') {
      res.end();
      return;
    }
    if (!res.hasHeader('content-length')) res.setHeader('content-length', Buffer.byteLength(body));
    res.end(body);
  }

  get headersSent(): boolean {
    return this.res.headersSent;
  }

  get writable(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }

  setHeader(name: string, value: string): void {
    if (!this.res.headersSent) this.res.setHeader(name, value);
  }

  respond(status: number, headers: ResponseHeaders, body: string): void {
    if (!this.writable) return;
    // A flat list goes to node:http as it is (its own form of `writeHead`'s headers).
    this.res.writeHead(status, headers as OutgoingHttpHeaders | string[]);
    this.res.end(body);
  }

  startStream(headers: HeaderMap): void {
    // The status line leaves with the frames that follow it in this tick (a priming event, a result):
    // one write instead of two.
    this.#cork();
    this.res.writeHead(200, headers);
    this.res.flushHeaders();
  }

  write(chunk: string): void {
    const res = this.res;
    this.#cork();
    res.write(chunk);
    if (res.writableLength > MAX_BUFFERED_BYTES) res.destroy();
  }

  /**
   * Frames produced in the same tick (the result and the end that follows it) leave in one write. The
   * socket is corked, not the response: Node 24's response-level cork sends the end of a chunked body
   * before the data corked ahead of it.
   */
  #cork(): void {
    const socket = this.res.socket;
    if (this.#corked !== null || socket === null) return;
    this.#corked = socket;
    socket.cork();
    process.nextTick(this.#uncork);
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }

  destroy(): void {
    this.res.destroy();
  }

  onClose(listener: (finished: boolean) => void): void {
    const res = this.res;
    if (res.destroyed && !res.writableFinished) {
      listener(false);
      return;
    }
    res.once('close', () => listener(res.writableFinished));
  }

  signal(): AbortSignal {
    if (this.#signal === undefined) {
      const controller = new AbortController();
      this.#signal = controller.signal;
      this.onClose((finished) => {
        if (!finished) controller.abort(new Error('the client went away'));
      });
    }
    return this.#signal;
  }

  refuseOversized(body: string, headers: HeaderMap): void {
    refuseOversizedBody(this.req, this.res, body, headers);
  }
}

function authorization(req: IncomingMessage): string | undefined {
  let folded: string | undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    // The length first: no lower-cased copy of every other header's name.
    if (name.length === 13 && name.toLowerCase() === 'authorization') {
      const value = raw[i + 1] as string;
      folded = folded === undefined ? value : `${folded}, ${value}`;
    }
  }
  return folded;
}
