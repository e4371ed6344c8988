// How the proxy's endpoints are served by a transport: the request re-based on the proxy's issuer (never on
// the `Host` header, which a client chooses) and its body held to a small limit, as a plugin route on any
// runtime.
import { oauthError, type WebHandler } from './web.js';

/** Form posts and registrations are small: a longer body is refused unread (413). */
export const MAX_BODY_BYTES = 64 * 1024;

/** `handler` as a plugin route: the URL built on `origin`, the body read under {@link MAX_BODY_BYTES}. */
export function served(handler: WebHandler, origin: string): (request: Request) => Promise<Response> {
  return async (request) => {
    const target = new URL(request.url);
    const method = request.method;
    let body: Uint8Array | undefined;
    if (method !== 'GET' && method !== 'HEAD' && request.body !== null) {
      const read = await readLimited(request);
      if (read === 'too-large') {
        return oauthError(413, 'invalid_request', 'The request body is too large', { connection: 'close' });
      }
      body = read;
    }
    return handler(
      new Request(new URL(`${target.pathname}${target.search}`, origin), {
        method,
        headers: request.headers,
        ...(body !== undefined && { body }),
      }),
    );
  };
}

/** The body, at most {@link MAX_BODY_BYTES}: a declared length over it is refused before reading. */
async function readLimited(request: Request): Promise<Uint8Array | 'too-large'> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    void request.body?.cancel();
    return 'too-large';
  }
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      void reader.cancel();
      return 'too-large';
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}
