// The one place that serves the proxy's web-standard endpoints on node:http, through the plugin contract's
// node-shaped `addRoute`. When core's plugin contract gains a runtime-neutral route shape, the routes are
// registered as they are and this file goes. Only node's *types* are imported: nothing Node-only loads.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebHandler } from './web.js';

/** Form posts and registrations are small: a longer body is refused unread (413). */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * A node route handler serving `handler`. The request's URL is built on `origin` (the proxy's configured
 * issuer), never on the `Host` header, which a client chooses.
 */
export function nodeHandler(
  handler: WebHandler,
  origin: string,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const body = await readBody(req);
    if (body === 'too-large') {
      send(res, 413, { 'content-type': 'application/json', connection: 'close' }, tooLarge);
      return;
    }
    const target = new URL(req.url ?? '/', 'http://target.invalid');
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else headers.set(name, value);
    }
    const method = req.method ?? 'GET';
    const request = new Request(new URL(`${target.pathname}${target.search}`, origin), {
      method,
      headers,
      ...(body !== undefined && method !== 'GET' && method !== 'HEAD' && { body }),
    });
    const response = await handler(request);
    const out: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie') out[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) out['set-cookie'] = cookies;
    const bytes = new Uint8Array(await response.arrayBuffer());
    send(res, response.status, out, method === 'HEAD' ? undefined : bytes);
  };
}

const tooLarge = new TextEncoder().encode(
  JSON.stringify({ error: 'invalid_request', error_description: 'The request body is too large' }),
);

function send(
  res: ServerResponse,
  status: number,
  headers: Record<string, string | string[]>,
  body: Uint8Array | undefined,
): void {
  if (body !== undefined) headers['content-length'] = String(body.byteLength);
  res.writeHead(status, headers);
  res.end(body);
}

/** The body, at most {@link MAX_BODY_BYTES}; `undefined` when there is none. */
function readBody(req: IncomingMessage): Promise<Uint8Array | undefined | 'too-large'> {
  if (req.method === 'GET' || req.method === 'HEAD' || req.readableEnded) return Promise.resolve(undefined);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    req.resume();
    return Promise.resolve('too-large');
  }
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    req.on('data', (chunk: Uint8Array) => {
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) {
        // Read and drop the rest, so the client sees the 413 rather than a reset.
        req.removeAllListeners('data');
        req.resume();
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return;
      const all = new Uint8Array(size);
      let at = 0;
      for (const chunk of chunks) {
        all.set(chunk, at);
        at += chunk.byteLength;
      }
      resolve(size === 0 ? undefined : all);
    });
    req.on('error', reject);
  });
}
