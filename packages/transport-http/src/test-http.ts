// Test helper (excluded from the build): plain HTTP requests with full control over headers and bytes.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON (`undefined` when it is not JSON). */
  readonly json: unknown;
}

export interface HttpAsk {
  readonly method?: string;
  readonly path?: string;
  readonly headers?: Record<string, string | number>;
  readonly body?: string | Buffer;
  /** Write the body in chunks without a Content-Length (chunked encoding). */
  readonly chunked?: boolean;
}

/** The headers a 2025-era client sends on a POST. */
export const LEGACY_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
} as const;

export const LEGACY_VERSION = '2025-11-25';
export const MODERN_VERSION = '2026-07-28';

export function initializeBody(id: number | string = 1, protocolVersion = LEGACY_VERSION): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
  });
}

/** A modern (2026-07-28) request: the `_meta` envelope in the body, the standard headers beside it. */
export function modernRequest(
  method: string,
  params: Record<string, unknown> = {},
  id: number | string = 1,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': method,
  };
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  return { body, headers };
}

/** One request on its own connection to `base`'s host and port; resolves with the whole answer (bounded by `timeoutMs`). */
export function ask(base: string, options: HttpAsk = {}, timeoutMs = 5_000): Promise<HttpAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        // Sent verbatim: `/mcp/../health` must reach the server as written.
        path: options.path ?? url.pathname,
        method: options.method ?? 'POST',
        headers: options.headers ?? {},
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    if (options.body === undefined) {
      req.end();
    } else if (options.chunked) {
      const bytes = Buffer.from(options.body);
      const size = 64 * 1024;
      let offset = 0;
      const pump = () => {
        while (offset < bytes.length) {
          const chunk = bytes.subarray(offset, offset + size);
          offset += size;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      pump();
    } else {
      req.end(options.body);
    }
  });
}

/** Sends raw bytes on a fresh connection and collects what comes back until the server closes. */
export function rawExchange(
  port: number,
  writes: readonly (string | { readonly delayMs: number })[],
  timeoutMs = 5_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connection still open after ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    socket.on('connect', async () => {
      for (const write of writes) {
        if (socket.destroyed) return;
        if (typeof write === 'string') socket.write(write);
        else await new Promise((done) => setTimeout(done, write.delayMs));
      }
    });
  });
}

/** Status and JSON body of a raw HTTP/1.1 answer. */
export function parseRawAnswer(raw: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
  const text = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  try {
    return { status, body: JSON.parse(text) };
  } catch {
    return { status, body: undefined };
  }
}

/** The JSON-RPC error of a body, for assertions. */
export function rpcError(json: unknown): { code: number; message: string } | undefined {
  return (json as { error?: { code: number; message: string } } | undefined)?.error;
}

export interface SseEvent {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
  readonly retry?: number;
}

/** Splits an SSE body into events (comments such as keep-alives are dropped). */
export function sseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\n\n/)) {
    const lines = block.split('\n').filter((line) => line !== '' && !line.startsWith(':'));
    if (lines.length === 0) continue;
    const event: { id?: string; event?: string; data: string; retry?: number } = { data: '' };
    const data: string[] = [];
    for (const line of lines) {
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'id') event.id = value;
      else if (field === 'event') event.event = value;
      else if (field === 'retry') event.retry = Number(value);
    }
    event.data = data.join('\n');
    events.push(event);
  }
  return events;
}

/** Reads a streamed response incrementally, each read bounded in time. */
export class StreamReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  /** Everything read so far. */
  text = '';
  ended = false;

  constructor(response: Response) {
    this.#reader = (response.body as ReadableStream<Uint8Array>).getReader();
  }

  /** Reads until `until(text)` holds or the stream ends; rejects after `timeoutMs`. */
  async readUntil(until: (text: string) => boolean, timeoutMs = 5_000): Promise<string> {
    const deadline = setTimeout(
      () => void this.#reader.cancel(new Error('read timed out')).catch(() => {}),
      timeoutMs,
    );
    try {
      while (!until(this.text)) {
        const { done, value } = await this.#reader.read();
        if (done) {
          this.ended = true;
          break;
        }
        this.text += this.#decoder.decode(value, { stream: true });
      }
      return this.text;
    } finally {
      clearTimeout(deadline);
    }
  }

  /** Reads to the end of the stream. */
  readToEnd(timeoutMs = 5_000): Promise<string> {
    return this.readUntil(() => this.ended, timeoutMs);
  }

  cancel(): Promise<void> {
    return this.#reader.cancel().catch(() => {});
  }
}
