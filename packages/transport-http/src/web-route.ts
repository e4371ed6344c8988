// Plugin routes are web-standard (`Request` → `Response`) so that they run on every runtime; on node they are
// served from node's request and written back to node's response. Only plugin routes pay for this: the MCP
// endpoint never builds a web Request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { HttpRoute } from '@pier/core/transport';

/** Runs `handler` for `req` and writes its `Response` to `res`; rejects (or throws) when the handler fails. */
export function serveWebRoute(
  handler: HttpRoute['handler'],
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> | undefined {
  const answer = handler(webRequest(req));
  if (answer instanceof Response) return writeResponse(req, res, answer);
  return answer.then((response) => writeResponse(req, res, response));
}

/** `req` as a web `Request`: its headers copied, its body streamed (never for GET or HEAD). */
export function webRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const method = req.method ?? 'GET';
  const withBody = method !== 'GET' && method !== 'HEAD';
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method,
    headers,
    ...(withBody && { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' }),
  } as RequestInit);
}

/**
 * Writes `response` on `res`, after the headers already set there (CORS, `Connection: close`). A body that
 * comes in one piece is sent with its length; a longer stream is sent as it comes. HEAD gets no body.
 */
export function writeResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
): Promise<void> | undefined {
  if (res.destroyed || res.headersSent) {
    void response.body?.cancel();
    return undefined;
  }
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie') res.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  res.statusCode = response.status;
  const body = response.body;
  if (body === null || req.method === 'HEAD') {
    void body?.cancel();
    res.end();
    return undefined;
  }
  return pipeBody(body, res);
}

async function pipeBody(body: ReadableStream<Uint8Array>, res: ServerResponse): Promise<void> {
  const reader = body.getReader();
  const close = () => void reader.cancel().catch(() => {});
  res.once('close', close);
  try {
    let chunk = await reader.read();
    if (chunk.done) {
      res.end();
      return;
    }
    const next = await reader.read();
    if (next.done) {
      if (!res.hasHeader('content-length')) res.setHeader('content-length', chunk.value.byteLength);
      res.end(chunk.value);
      return;
    }
    res.write(chunk.value);
    chunk = next;
    while (!chunk.done) {
      if (res.destroyed) return;
      res.write(chunk.value);
      chunk = await reader.read();
    }
    res.end();
  } finally {
    res.off('close', close);
  }
}
