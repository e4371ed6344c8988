// JSON-RPC as the engine reads and writes it: the message shapes, the protocol's error codes, the reserved
// `_meta` keys, and the checks every message passes before it reaches a method. Plain objects and
// hand-written guards: a message is checked once, without a schema library, on every request.
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/** A JSON-RPC request id. */
export type RequestId = string | number;

/** A JSON object, as params and results are. */
export type JsonObject = Record<string, unknown>;

export interface RequestMessage {
  readonly jsonrpc: '2.0';
  readonly id: RequestId;
  readonly method: string;
  readonly params?: JsonObject;
}

export interface NotificationMessage {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params?: JsonObject;
}

export interface ResultMessage {
  readonly jsonrpc: '2.0';
  readonly id: RequestId;
  readonly result: JsonObject;
}

export interface ErrorMessage {
  readonly jsonrpc: '2.0';
  readonly id: RequestId | null;
  readonly error: RpcErrorBody;
}

/** The `error` member of a JSON-RPC error response. */
export interface RpcErrorBody {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export type ResponseMessage = ResultMessage | ErrorMessage;
/** Any JSON-RPC message either side may send. */
export type Message = RequestMessage | NotificationMessage | ResponseMessage;

/** The error codes of JSON-RPC and of the protocol revisions Pier serves. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** The SDK's "connection closed" (an answer owed when the connection ended). */
  ConnectionClosed: -32000,
  /** 2025 streamable HTTP: a session id the server does not hold. */
  SessionNotFound: -32001,
  /** 2026-07-28: the HTTP headers and the body disagree (SEP-2243). */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a capability the client did not declare. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the request names a protocol version the server does not serve. */
  UnsupportedProtocolVersion: -32022,
  /** 2025-11-25: URL elicitation required. */
  UrlElicitationRequired: -32042,
} as const;

/** The one 2026-07-28-era revision Pier serves. */
export const MODERN_VERSION = '2026-07-28';
/** The 2025-era revisions Pier negotiates in `initialize`, newest first (the SDK's list). */
export const LEGACY_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
const LEGACY_SET: ReadonlySet<string> = new Set(LEGACY_VERSIONS);
/** The version a 2025-era client that names none is served (the HTTP transport's default). */
export const DEFAULT_LEGACY_VERSION = '2025-03-26';

/** Reserved `_meta` keys. */
export const Meta = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** Whether `version` is a revision of the 2026-07-28 era (revisions are dates: they sort by time). */
export function isModernVersion(version: string): boolean {
  return version >= MODERN_VERSION;
}

/** Whether `version` is a 2025-era revision Pier negotiates. */
export function isLegacyVersion(version: string): boolean {
  return LEGACY_SET.has(version);
}

/** A JSON object as parsed from the wire: an object that is neither `null` nor an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A plain object a program built (a literal, `Object.create(null)`): not an array, a class instance, a
 * `Map` or a `Date`, which JSON would not carry as they are.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A request id by JSON-RPC's rules as the SDK reads them: a string or a safe integer. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

const MESSAGE_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);

/** What a parsed JSON value is, as a JSON-RPC message; `undefined` when it is none. */
export type MessageKind = 'request' | 'notification' | 'result' | 'error';

/**
 * The kind of `value` as a JSON-RPC 2.0 message, checked as strictly as the SDK's schemas check it: no
 * member beyond the four a message may have, `params` an object when present, a request id a string or an
 * integer, an error with a numeric code and a string message.
 */
export function messageKind(value: unknown): MessageKind | undefined {
  if (!isJsonObject(value) || value.jsonrpc !== '2.0') return undefined;
  for (const key in value) if (!MESSAGE_KEYS.has(key)) return undefined;
  const method = value.method;
  if (typeof method === 'string') {
    if ('result' in value || 'error' in value) return undefined;
    const params = value.params;
    if (params !== undefined && !isJsonObject(params)) return undefined;
    if (!('id' in value)) return 'notification';
    return isRequestId(value.id) ? 'request' : undefined;
  }
  if (method !== undefined || !isRequestId(value.id)) {
    // An error answer may carry `id: null` (a request that could not be read).
    if (value.id !== null || !('error' in value)) return undefined;
  }
  if ('result' in value) return 'error' in value || !isJsonObject(value.result) ? undefined : 'result';
  if ('error' in value) {
    const error = value.error;
    return isJsonObject(error) && typeof error.code === 'number' && typeof error.message === 'string'
      ? 'error'
      : undefined;
  }
  return undefined;
}

/** `{ result, jsonrpc, id }`: the key order the SDK writes. */
export function resultMessage(id: RequestId, result: JsonObject): ResultMessage {
  return { result, jsonrpc: '2.0', id };
}

/** `{ jsonrpc, id, error }`: the key order the SDK writes. */
export function errorMessage(id: RequestId | null, error: RpcErrorBody): ErrorMessage {
  return { jsonrpc: '2.0', id, error };
}

export function notificationMessage(method: string, params?: JsonObject): NotificationMessage {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

/** The `_meta` object of a message's params, when it is one. */
export function metaOf(params: JsonObject | undefined): JsonObject | undefined {
  const meta = params?._meta;
  return isJsonObject(meta) ? meta : undefined;
}

/** The id of a parsed body, when it has one to echo in an error (`null` otherwise). */
export function echoId(body: unknown): RequestId | null {
  if (!isJsonObject(body)) return null;
  return isRequestId(body.id) ? body.id : null;
}

/** Whether `value` is a promise or another thenable (what `await` would wait for). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
