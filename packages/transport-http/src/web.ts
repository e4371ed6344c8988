import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { InspectOptions } from 'node:util';
import type { Exchange } from './drain.js';

/** Hop-by-hop and body-framing headers: node sets these itself on both sides. */
const SKIPPED_REQUEST_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
]);
const SKIPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/**
 * A body-less web `Request` for the SDK: the body has already been read (once, under the size limit) and
 * goes to the SDK as `parsedBody`, so nothing is cloned or read twice. `signal`, when given, is followed by
 * the request (undici's `Request` costs about three times as much to build with one).
 */
export function toWebRequest(req: IncomingMessage, fallbackOrigin: string, signal?: AbortSignal): Request {
  const headers = webHeaders(req);
  const target = req.url ?? '/';
  const init: RequestInit =
    signal === undefined
      ? { method: req.method ?? 'GET', headers }
      : { method: req.method ?? 'GET', headers, signal };
  const host = req.headers.host;
  if (host !== undefined && target.startsWith('/')) {
    try {
      return new Request(`http://${host}${target}`, init);
    } catch {
      // An odd Host on a non-loopback bind: the URL only matters to the SDK as a label.
    }
  }
  return new Request(`${fallbackOrigin}${target.startsWith('/') ? target : '/'}`, init);
}

const LAZY = Symbol('pier.lazyRequest');

interface LazyState {
  readonly req: IncomingMessage;
  readonly origin: string;
  readonly res: ServerResponse | undefined;
  headers?: Headers;
  signal?: AbortSignal;
  real?: Request;
}

type LazyTarget = Request & { [LAZY]: LazyState };

/** One handler for every lazy request: the state lives on the proxy's target, no closure per request. */
const LAZY_HANDLER: ProxyHandler<LazyTarget> = {
  get(target, property) {
    const state = target[LAZY];
    // What the SDK reads on every exchange is answered without building the real Request.
    if (property === 'method') return state.req.method ?? 'GET';
    if (property === 'headers') {
      state.headers ??= state.real?.headers ?? nodeHeaders(state.req);
      return state.headers;
    }
    if (property === 'signal') {
      state.signal ??= abortedOnDisconnect(state.res);
      return state.signal;
    }
    const real = realRequest(state);
    const value: unknown = Reflect.get(real, property, real);
    return typeof value === 'function' ? value.bind(real) : value;
  },
  has(target, property) {
    return Reflect.has(realRequest(target[LAZY]), property);
  },
};

/**
 * A stand-in for the web `Request` of `req`, for the SDK (`createMcpHandler`'s `fetch`, and the request
 * context handlers see as `ctx.http.req`). It passes `instanceof Request`; `method`, `headers` and
 * `signal` are answered from node's request (headers copied once, on first read), and anything else
 * (`url`, `clone()`, …) comes from a real `Request` built on first use. Building one costs more than the
 * rest of a 2025-era exchange's transport work; few handlers read more than the headers.
 *
 * `signal` aborts when the client goes away before `res` finished, which is how the SDK learns to stop
 * serving an exchange (and how handlers see cancellation).
 */
export function lazyRequest(req: IncomingMessage, origin: string, res?: ServerResponse): Request {
  const target = Object.create(Request.prototype) as LazyTarget;
  target[LAZY] = { req, origin, res };
  return new Proxy(target, LAZY_HANDLER);
}

function realRequest(state: LazyState): Request {
  state.real ??= toWebRequest(state.req, state.origin, state.signal);
  return state.real;
}

function abortedOnDisconnect(res: ServerResponse | undefined): AbortSignal {
  const controller = new AbortController();
  if (res === undefined) return controller.signal;
  if (res.closed) {
    if (!res.writableFinished) controller.abort();
  } else {
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
  }
  return controller.signal;
}

const NODE = Symbol('pier.nodeHeaders');

interface NodeHeadersState {
  readonly req: IncomingMessage;
  real?: Headers;
}

type NodeHeaders = Headers & { readonly [NODE]: NodeHeadersState };

let nodeHeadersPrototype: Headers | undefined;

/**
 * The prototype of every {@link nodeHeaders}, made by the first: `Headers` is a lazy global of node's, and
 * reading it loads undici (with node:crypto, tls, http2, zlib: ≈ 200 M instructions, some 15 % of an HTTP
 * cold start on Node 20), so the module does not read it when imported, and a server that has answered
 * only its own routes (a health probe) has not read it yet.
 */
function makeNodeHeadersPrototype(): Headers {
  const prototype: Omit<Headers, typeof Symbol.iterator> & ThisType<NodeHeaders> = Object.create(
    Headers.prototype,
  );
  return Object.assign(prototype, NODE_HEADERS_METHODS) as unknown as Headers;
}

/**
 * Web `Headers` over node's `req.headers`. `get` and `has`, what the SDK and observers ask per request,
 * read node's object directly; anything else (iteration, a change) goes to a real `Headers` copied on
 * first use. Copying every header costs about a sixth of a direct call, and most requests never need it.
 * It passes `instanceof Headers` (undici's constructor never runs for it: every method is replaced here),
 * and undici takes it wherever it takes headers, by iterating it.
 */
const NODE_HEADERS_METHODS: Partial<Headers> & ThisType<NodeHeaders> = {
  get(this: NodeHeaders, name: string): string | null {
    const state = this[NODE];
    if (state.real !== undefined) return state.real.get(name);
    return nodeValue(state.req, name) ?? absent(name, 'get', null);
  },
  has(this: NodeHeaders, name: string): boolean {
    const state = this[NODE];
    if (state.real !== undefined) return state.real.has(name);
    return nodeValue(state.req, name) !== undefined || absent(name, 'has', false);
  },
  set(this: NodeHeaders, name: string, value: string): void {
    realHeaders(this[NODE]).set(name, value);
  },
  append(this: NodeHeaders, name: string, value: string): void {
    realHeaders(this[NODE]).append(name, value);
  },
  delete(this: NodeHeaders, name: string): void {
    realHeaders(this[NODE]).delete(name);
  },
  getSetCookie(this: NodeHeaders): string[] {
    return realHeaders(this[NODE]).getSetCookie();
  },
  forEach(
    this: NodeHeaders,
    callback: (value: string, key: string, parent: Headers) => void,
    thisArg?: unknown,
  ): void {
    realHeaders(this[NODE]).forEach((value, key) => {
      callback.call(thisArg, value, key, this);
    });
  },
  entries(this: NodeHeaders) {
    return realHeaders(this[NODE]).entries();
  },
  keys(this: NodeHeaders) {
    return realHeaders(this[NODE]).keys();
  },
  values(this: NodeHeaders) {
    return realHeaders(this[NODE]).values();
  },
  [Symbol.iterator](this: NodeHeaders) {
    return realHeaders(this[NODE]).entries();
  },
  // `console.log(headers)`: undici's own inspector reads the list this object does not have.
  // `inspect.custom` is this registered symbol; node:util is loaded when something is inspected, not at
  // start-up.
  [Symbol.for('nodejs.util.inspect.custom')](this: NodeHeaders, _depth: number, options: InspectOptions) {
    return process.getBuiltinModule('node:util').inspect(realHeaders(this[NODE]), options);
  },
};

/** The request's headers as web `Headers`, read from node's on demand (see `NODE_HEADERS_METHODS`). */
function nodeHeaders(req: IncomingMessage): Headers {
  nodeHeadersPrototype ??= makeNodeHeadersPrototype();
  const headers = Object.create(nodeHeadersPrototype) as { [NODE]: NodeHeadersState };
  headers[NODE] = { req };
  return headers as unknown as Headers;
}

function realHeaders(state: NodeHeadersState): Headers {
  state.real ??= new Headers(webHeaders(state.req));
  return state.real;
}

/** RFC 9110's token: what a real `Headers` accepts as a name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** What a real `Headers` answers for a name it does not hold: `answer`, or a TypeError for an invalid name. */
function absent<T>(name: string, method: string, answer: T): T {
  if (!HEADER_NAME.test(String(name))) {
    throw new TypeError(`Headers.${method}: "${String(name)}" is an invalid header name.`);
  }
  return answer;
}

/** A header's value as the real `Headers` would give it, or `undefined` when node has none of that name. */
function nodeValue(req: IncomingMessage, name: string): string | undefined {
  const key = typeof name === 'string' ? name.toLowerCase() : String(name).toLowerCase();
  if (SKIPPED_REQUEST_HEADERS.has(key)) return undefined;
  const value = req.headers[key];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}

/** Node's request headers as web headers: hop-by-hop and body-framing ones left out, repeats joined. */
function webHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  const source = req.headers;
  for (const name in source) {
    if (SKIPPED_REQUEST_HEADERS.has(name)) continue;
    const value = source[name];
    if (value === undefined) continue;
    headers[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return headers;
}

/**
 * Writes an SDK `Response` to node's `res`. A JSON body is sent in one write with its length; an SSE body is
 * piped chunk by chunk (flushed at once, with backpressure), and `exchange.end` is set so that shutdown can
 * end it cleanly. Resolves when the response is complete or the client has gone.
 */
export async function sendWebResponse(
  res: ServerResponse,
  response: Response,
  exchange: Exchange,
): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!SKIPPED_RESPONSE_HEADERS.has(name)) headers[name] = value;
  });
  const body = response.body;
  if (res.destroyed) {
    await body?.cancel().catch(() => {});
    return;
  }
  if (body === null) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  if (!headers['content-type']?.startsWith('text/event-stream')) {
    const bytes = await readAll(body);
    if (res.destroyed) return;
    headers['content-length'] = String(bytes.byteLength);
    res.writeHead(response.status, headers);
    // As a string, the status line and the body leave in one socket write.
    res.end(bytes.toString('utf8'));
    return;
  }
  await pipeEventStream(res, response.status, headers, body, exchange);
}

async function pipeEventStream(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: ReadableStream<Uint8Array>,
  exchange: Exchange,
): Promise<void> {
  const reader = body.getReader();
  let ended = false;
  const stop = () => {
    ended = true;
    reader.cancel().catch(() => {});
  };
  res.once('close', stop);
  exchange.end = () => {
    stop();
    if (!res.writableEnded) res.end();
  };
  res.writeHead(status, headers);
  // The status line goes out with the first event when that comes within this turn of the event loop (a
  // quick tool call: headers, event and end leave in one write instead of three); a stream that stays
  // quiet gets its headers right after, so the client knows it is open.
  let written = false;
  const flush = setImmediate(() => {
    if (!written && !res.writableEnded) res.flushHeaders();
  });
  let corked: Socket | null = null;
  const uncork = () => {
    const socket = corked;
    corked = null;
    socket?.uncork();
  };
  try {
    while (!ended) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      written = true;
      if (corked === null && res.socket !== null) {
        // Events produced together (and the end that often follows) are sent together. The socket is
        // corked, not the response: Node 24's response-level cork sends the end of a chunked body first.
        corked = res.socket;
        corked.cork();
        process.nextTick(uncork);
      }
      if (!res.write(value)) await drained(res);
    }
    if (!res.writableEnded) res.end();
  } catch {
    // The SDK's stream failed mid-response: cutting the connection is the only honest signal left.
    res.destroy();
  } finally {
    clearImmediate(flush);
    res.off('close', stop);
    exchange.end = undefined;
  }
}

/** The whole body (a JSON answer: one chunk, as a rule); a reader is cheaper than `Response.text()`. */
async function readAll(body: ReadableStream<Uint8Array>): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  const first = chunks[0];
  if (chunks.length === 1 && first !== undefined) {
    return Buffer.from(first.buffer, first.byteOffset, first.byteLength);
  }
  return Buffer.concat(chunks, size);
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
