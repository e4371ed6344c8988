// The exchange seam on a web `Request`, answered with a `Response`: what `createFetchHandler` hands to request
// handling on Bun, Deno, Cloudflare Workers and Node. An SSE answer is a `ReadableStream` the runtime sends
// as it is written. No `node:` module.
import type { HttpRequestHead, HttpRoute } from '@pier/core/transport';
import {
  type BodyRead,
  DISCARD_LIMIT_BYTES,
  type ExchangeTracker,
  type HeaderMap,
  type HttpExchange,
  type ResponseHeaders,
  TrackedExchange,
} from './exchange.js';

const encoder = /* @__PURE__ */ new TextEncoder();
const TOO_LARGE: BodyRead = { ok: false, reason: 'too-large' };
const ABORTED: BodyRead = { ok: false, reason: 'aborted' };
const EMPTY: BodyRead = { ok: true, text: '' };
/** Headers the runtime owns: it frames the response itself (a `Response` computes its own length). */
const RUNTIME_OWNED = new Set(['connection', 'content-length', 'keep-alive', 'transfer-encoding']);

/** {@link HttpExchange} on a web `Request`; {@link response} resolves with what it answers. */
export class WebExchange extends TrackedExchange implements HttpExchange {
  readonly method: string;
  readonly target: string;
  readonly missingHost = false;
  // A web `Request` carries no peer address; `limitsPlugin({ clientIp })` reads one from a header instead.
  readonly remoteAddress = undefined;
  /** The answer, once request handling gave one (a stream's `Response` resolves when the stream starts). */
  readonly response: Promise<Response>;
  readonly #request: Request;
  #deliver!: (response: Response) => void;
  #fail!: (error: Error) => void;
  /** Headers set before the answer (CORS). */
  #preset: Record<string, string> | undefined;
  #sent = false;
  #over = false;
  #stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  #closeListeners: ((finished: boolean) => void)[] | undefined;
  #controller: AbortController | undefined;

  constructor(request: Request, target: string, tracker: ExchangeTracker) {
    super(tracker);
    this.#request = request;
    this.method = request.method;
    this.target = target;
    this.response = new Promise<Response>((resolve, reject) => {
      this.#deliver = resolve;
      this.#fail = reject;
    });
  }

  header(name: string): string | undefined {
    const value = this.#request.headers.get(name);
    if (value !== null) return value;
    // Some runtimes keep the authority in the URL only.
    return name === 'host' ? hostOf(this.#request.url) : undefined;
  }

  head(): HttpRequestHead {
    return {
      method: this.method,
      url: this.target,
      header: (name) => this.header(name),
      basePath: this.basePath,
    };
  }

  allHeaders(): Headers {
    return this.#request.headers;
  }

  readBody(limit: number, onRead: (read: BodyRead) => void): void {
    // Never rejects: `onRead` is all that follows.
    void this.#readBody(limit).then(onRead);
  }

  async #readBody(limit: number): Promise<BodyRead> {
    const request = this.#request;
    // `request.body` is read only where the body must be streamed (chunked, or over the limit): on Node,
    // `@hono/node-server` hands over a light `Request` that turns into a full one, node's stream wrapped
    // in a web stream, as soon as `body` is touched, while `text()` reads node's stream directly. That
    // cost was most of what Pier's fetch handler spent on Node beyond the listener's path.
    const method = this.method;
    if (method === 'GET' || method === 'HEAD') return EMPTY;
    const declared = request.headers.get('content-length');
    if (declared !== null) {
      const length = Number(declared);
      if (length > limit) {
        const body = request.body;
        return body === null ? EMPTY : discarded(body.getReader(), 0);
      }
      // The runtime reads exactly the declared length: its own fast path (one native read and decode).
      try {
        return { ok: true, text: await request.text() };
      } catch {
        return ABORTED;
      }
    }
    if (request.body === null) return EMPTY;
    // Chunked: read as it comes, and stop at the limit.
    const reader = request.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) return discarded(reader, value.byteLength);
        chunks.push(value);
      }
    } catch {
      return ABORTED;
    }
    const decoder = new TextDecoder();
    if (chunks.length === 1) return { ok: true, text: decoder.decode(chunks[0]) };
    const whole = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      whole.set(chunk, at);
      at += chunk.byteLength;
    }
    return { ok: true, text: decoder.decode(whole) };
  }

  serveRoute(route: HttpRoute): Promise<void> | undefined {
    const answer = route.handler(this.#request);
    if (answer instanceof Response) {
      this.#answerWith(answer);
      return undefined;
    }
    return answer.then((response) => this.#answerWith(response));
  }

  get headersSent(): boolean {
    return this.#sent;
  }

  get writable(): boolean {
    return !this.#over;
  }

  setHeader(name: string, value: string): void {
    if (this.#sent || RUNTIME_OWNED.has(name)) return;
    this.#preset ??= {};
    this.#preset[name] = value;
  }

  respond(status: number, headers: ResponseHeaders, body: string): void {
    if (this.#sent) return;
    this.#sent = true;
    // 204, 304 and friends carry no body; an empty one is none either.
    this.#deliver(new Response(body === '' ? null : body, { status, headers: this.#headers(headers) }));
    this.#finish(true);
  }

  startStream(headers: HeaderMap): void {
    if (this.#sent) return;
    this.#sent = true;
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#stream = controller;
      },
      // The client went away (or the runtime gave up on the response).
      cancel: () => this.#finish(false),
    });
    this.#deliver(new Response(stream, { status: 200, headers: this.#headers(headers) }));
  }

  write(chunk: string): void {
    if (this.#over || this.#stream === undefined) return;
    try {
      this.#stream.enqueue(encoder.encode(chunk));
    } catch {
      this.#finish(false);
    }
  }

  end(): void {
    if (this.#over) return;
    if (!this.#sent) {
      this.respond(200, {}, '');
      return;
    }
    try {
      this.#stream?.close();
    } catch {
      // Closed by the runtime already.
    }
    this.#finish(true);
  }

  destroy(): void {
    if (this.#over) return;
    if (!this.#sent) {
      this.#sent = true;
      this.#fail(new Error('the response was cut'));
    } else {
      try {
        this.#stream?.error(new Error('the response was cut'));
      } catch {
        // Closed by the runtime already.
      }
    }
    this.#finish(false);
  }

  onClose(listener: (finished: boolean) => void): void {
    if (this.#over) {
      listener(this.#sent);
      return;
    }
    this.#closeListeners ??= [];
    this.#closeListeners.push(listener);
  }

  signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      const gone = this.#request.signal;
      // Runtimes abort the request's signal when the client disconnects.
      if (gone.aborted) this.#finish(false);
      else gone.addEventListener('abort', () => this.#finish(false), { once: true });
    }
    return this.#controller.signal;
  }

  refuseOversized(body: string, headers: HeaderMap): void {
    // The rest of the body was read and thrown away (readBody): the client, done sending, reads the 413.
    this.respond(413, headers, body);
  }

  /** A plugin route's answer, with the headers set before it (CORS); HEAD gets none of its body. */
  #answerWith(response: Response): void {
    if (this.#sent) {
      void response.body?.cancel();
      return;
    }
    this.#sent = true;
    const head = this.method === 'HEAD';
    if (this.#preset === undefined && !head) {
      this.#deliver(response);
    } else {
      if (head) void response.body?.cancel();
      const headers = new Headers(response.headers);
      for (const [name, value] of Object.entries(this.#preset ?? {})) headers.set(name, value);
      this.#deliver(
        new Response(head ? null : response.body, {
          status: response.status,
          statusText: response.statusText,
          headers,
        }),
      );
    }
    this.#finish(true);
  }

  /** The answer's headers after the preset ones, less what the runtime owns: a plain record, no `Headers`. */
  #headers(headers: ResponseHeaders): Record<string, string> {
    const merged: Record<string, string> = this.#preset === undefined ? {} : { ...this.#preset };
    if (Array.isArray(headers)) {
      for (let index = 0; index < headers.length; index += 2) {
        const name = headers[index] as string;
        if (!RUNTIME_OWNED.has(name)) merged[name] = headers[index + 1] as string;
      }
      return merged;
    }
    const record = headers as HeaderMap;
    for (const name in record) {
      if (!RUNTIME_OWNED.has(name)) merged[name] = record[name] as string;
    }
    return merged;
  }

  #finish(finished: boolean): void {
    if (this.#over) return;
    this.#over = true;
    if (!finished) this.#controller?.abort(new Error('the client went away'));
    const listeners = this.#closeListeners;
    this.#closeListeners = undefined;
    this.closed();
    if (listeners !== undefined) for (const listener of listeners) listener(finished);
  }
}

/**
 * Reads and throws away the rest of an oversized body (up to {@link DISCARD_LIMIT_BYTES}) before the 413
 * goes out: a runtime that answers while the client is still sending closes the connection under it (Bun
 * does), and the client sees a broken pipe instead of the answer. Past the bound, the body is cancelled.
 */
async function discarded(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  already: number,
): Promise<BodyRead> {
  let thrown = already;
  try {
    while (thrown <= DISCARD_LIMIT_BYTES) {
      const { done, value } = await reader.read();
      if (done) return TOO_LARGE;
      thrown += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away, or the runtime gave up on the body: the 413 is all there is to say.
  }
  return TOO_LARGE;
}

/** The authority of an absolute URL (`http://host:port/path` → `host:port`). */
function hostOf(url: string): string | undefined {
  const start = url.indexOf('://');
  if (start === -1) return undefined;
  const end = url.indexOf('/', start + 3);
  return url.slice(start + 3, end === -1 ? url.length : end);
}

/** The origin-form target of an absolute URL: `http://host/mcp?x=1` → `/mcp?x=1`. */
export function targetOf(url: string): string {
  const start = url.indexOf('://');
  const path = start === -1 ? -1 : url.indexOf('/', start + 3);
  return path === -1 ? '/' : url.slice(path);
}
