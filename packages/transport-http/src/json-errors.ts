import { byteLength, type HttpExchange } from './exchange.js';

/** JSON-RPC error codes used in transport-level answers. */
export const JSONRPC = {
  parseError: -32700,
  invalidRequest: -32600,
  /** Implementation-defined server error; the SDK uses it for transport-level refusals too. */
  serverError: -32000,
  /** What the SDK answers for an unknown or expired session. */
  sessionNotFound: -32001,
  internalError: -32603,
} as const;

/** A JSON-RPC id that can be echoed: only a single request's string or number id. */
export type EchoId = string | number | null;

/** Options of {@link sendJsonError}. */
export interface JsonErrorOptions {
  /** The id of the request being answered, when it could be read. */
  readonly id?: EchoId;
  /** Extra response headers, such as `Allow` or `Retry-After`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Answers with a JSON-RPC error object as the body: every error Pier's transport produces has this shape,
 * so a client can always parse it (`{"jsonrpc":"2.0","error":{"code":…,"message":…},"id":…}`).
 */
export function sendJsonError(
  exchange: HttpExchange,
  status: number,
  code: number,
  message: string,
  options: JsonErrorOptions = {},
): void {
  if (exchange.headersSent || !exchange.writable) {
    // Too late for a status line: the client learns of the failure from the cut connection.
    exchange.destroy();
    return;
  }
  const body = jsonError(code, message, options.id ?? null);
  exchange.respond(status, jsonHeaders(body, { 'cache-control': 'no-store', ...options.headers }), body);
}

/** A JSON-RPC error object as JSON text. */
export function jsonError(code: number, message: string, id: EchoId = null): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id });
}

/** `extra` headers, then the content type and length of a JSON `body`. */
export function jsonHeaders(body: string, extra?: Readonly<Record<string, string>>): Record<string, string> {
  return Object.assign({}, extra, {
    'content-type': 'application/json',
    'content-length': String(byteLength(body)),
  });
}

/** The id to echo on an error answer: a single request's string or number id, else `null`. */
export function echoId(body: unknown): EchoId {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { id, method } = body as { id?: unknown; method?: unknown };
  if (typeof method !== 'string') return null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** Shortens client-supplied text (a path, a header) before it goes into a message. */
export function clip(text: string, max = 120): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
