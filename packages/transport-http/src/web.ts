import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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
 * goes to the SDK as `parsedBody`, so nothing is cloned or read twice. `signal` aborts when the client
 * goes away, which is how `createMcpHandler` learns to stop serving an exchange.
 */
export function toWebRequest(req: IncomingMessage, fallbackOrigin: string, signal?: AbortSignal): Request {
  const headers: Record<string, string> = {};
  const source = req.headers;
  for (const name in source) {
    if (SKIPPED_REQUEST_HEADERS.has(name)) continue;
    const value = source[name];
    if (value === undefined) continue;
    headers[name] = typeof value === 'string' ? value : value.join(', ');
  }
  const target = req.url ?? '/';
  // A signal makes undici's Request four times as costly to build: only pass one when it is listened to.
  const init: RequestInit =
    signal === undefined
      ? { method: req.method ?? 'GET', headers }
      : { method: req.method ?? 'GET', headers, signal };
  const host = source.host;
  if (host !== undefined && target.startsWith('/')) {
    try {
      return new Request(`http://${host}${target}`, init);
    } catch {
      // An odd Host on a non-loopback bind: the URL only matters to the SDK as a label.
    }
  }
  return new Request(`${fallbackOrigin}${target.startsWith('/') ? target : '/'}`, init);
}

/**
 * A `Request` that is only built when something reads it. The SDK hands the HTTP request to handlers as
 * `ctx.http.req`, which few of them read; building one costs about as much as the rest of a 2025-era
 * exchange's transport work. The stand-in passes `instanceof Request`, and every property and method
 * comes from the real `Request`, built on first use.
 */
export function lazyRequest(build: () => Request): Request {
  let real: Request | undefined;
  const target = Object.create(Request.prototype) as Request;
  return new Proxy(target, {
    get(_target, property) {
      real ??= build();
      const value: unknown = Reflect.get(real, property, real);
      return typeof value === 'function' ? value.bind(real) : value;
    },
    has(_target, property) {
      real ??= build();
      return Reflect.has(real, property);
    },
  });
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
    const text = await response.text();
    if (res.destroyed) return;
    headers['content-length'] = String(Buffer.byteLength(text));
    res.writeHead(response.status, headers);
    res.end(text);
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
