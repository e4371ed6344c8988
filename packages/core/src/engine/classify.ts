// The one place a message's protocol era is decided, for every transport: `classifyEra`. The rules are the
// SDK's body-primary rules (a request is 2026-07-28 when its `_meta` carries the protocol-version claim;
// `initialize` and claim-less traffic are 2025), with the HTTP header cross-checks of SEP-2243 when the
// transport has headers. Everyday traffic is decided here without a schema library; anything unusual is
// handed to the SDK's own classifier (`classifyInboundRequest`), so every refusal carries exactly the
// status, code and message the SDK gives.
import type {
  ClientCapabilities,
  Implementation,
  InboundClassificationOutcome,
  LoggingLevel,
} from '@modelcontextprotocol/server';
import { classifyInboundRequest, UnsupportedProtocolVersionError } from '@modelcontextprotocol/server';
import {
  ErrorCode,
  isJsonObject,
  isLegacyVersion,
  isModernVersion,
  type JsonObject,
  Meta,
  MODERN_VERSION,
  messageKind,
  metaOf,
  type RpcErrorBody,
} from './wire.js';

/** Reads one HTTP request header by its lower-case name; `undefined` when absent. */
export type HeaderReader = (name: string) => string | undefined;

/** What a 2026-07-28 request declares about its client, read from its validated `_meta` envelope. */
export interface Envelope {
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly logLevel: LoggingLevel | undefined;
}

/** A message the transport must refuse before the engine sees it: HTTP status and JSON-RPC error. */
export interface Refusal {
  readonly status: number;
  readonly error: RpcErrorBody;
}

/** How {@link classifyEra} decided. */
export type Classification =
  | { readonly era: 'modern'; readonly envelope: Envelope | undefined }
  | { readonly era: 'legacy'; readonly requestedVersion: string | undefined }
  | { readonly refused: Refusal };

/** What {@link classifyEra} reads. */
export interface ClassifyInput {
  /** The parsed body: one message, or a batch (array). */
  readonly body: unknown;
  /** HTTP request headers, when the message came over HTTP: checked against the body (SEP-2243). */
  readonly headers?: HeaderReader | undefined;
}

/**
 * Decides the protocol era of a message (or batch) a transport received, once: `modern` (2026-07-28,
 * with the request's validated envelope), `legacy` (a 2025 revision), or a refusal the transport answers
 * as it is (status and JSON-RPC error) without dispatching. A 2026-07-28 request over HTTP is also checked
 * against the standard request headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).
 */
export function classifyEra(input: ClassifyInput): Classification {
  const { body, headers } = input;
  if (isJsonObject(body) && typeof body.method === 'string') {
    const fast = fastClassification(body, headers);
    if (fast !== undefined) return fast;
  }
  return sdkClassification(body, headers);
}

/** Everyday messages decided without a schema: `undefined` sends the message to the SDK's classifier. */
function fastClassification(body: JsonObject, headers: HeaderReader | undefined): Classification | undefined {
  const kind = messageKind(body);
  if (kind !== 'request' && kind !== 'notification') return undefined;
  const params = body.params as JsonObject | undefined;
  const meta = metaOf(params);
  const headerVersion = headers?.('mcp-protocol-version');
  if (meta === undefined || !(Meta.protocolVersion in meta)) {
    // Claim-less: 2025 traffic, unless a header names a modern revision (the SDK refuses or serves that).
    if (
      headerVersion !== undefined &&
      (headerVersion.trim() !== headerVersion || isModernVersion(headerVersion))
    ) {
      return undefined;
    }
    if (body.method === 'initialize' && kind === 'request') {
      const requested = params?.protocolVersion;
      return { era: 'legacy', requestedVersion: typeof requested === 'string' ? requested : undefined };
    }
    return { era: 'legacy', requestedVersion: headerVersion };
  }
  const claimed = meta[Meta.protocolVersion];
  if (claimed !== MODERN_VERSION || kind !== 'request') return undefined;
  const envelope = acceptedEnvelope(meta);
  if (envelope === undefined) return undefined;
  if (headers !== undefined) {
    const refused = standardHeaderRefusal(headers, body.method as string, params);
    if (refused !== undefined) return { refused };
  }
  return { era: 'modern', envelope };
}

/** The SDK's verdict for a message the fast path did not take, completed with the checks it leaves to its entry. */
function sdkClassification(body: unknown, headers: HeaderReader | undefined): Classification {
  const outcome: InboundClassificationOutcome = classifyInboundRequest({
    httpMethod: 'POST',
    ...(headers !== undefined && {
      protocolVersionHeader: headers('mcp-protocol-version'),
      mcpMethodHeader: headers('mcp-method'),
      mcpNameHeader: headers('mcp-name'),
    }),
    body,
  } as Parameters<typeof classifyInboundRequest>[0]);
  if (outcome.kind === 'reject') {
    return {
      refused: {
        status: outcome.httpStatus,
        error: {
          code: outcome.code,
          message: outcome.message,
          ...(outcome.data !== undefined && { data: outcome.data }),
        },
      },
    };
  }
  if (outcome.kind === 'legacy') return { era: 'legacy', requestedVersion: outcome.requestedVersion };
  const revision = outcome.classification.revision;
  if (revision !== undefined && revision !== MODERN_VERSION) {
    const error = new UnsupportedProtocolVersionError({ supported: [MODERN_VERSION], requested: revision });
    return {
      refused: { status: 400, error: { code: error.code, message: error.message, data: error.data } },
    };
  }
  if (outcome.messageKind === 'notification') return { era: 'modern', envelope: undefined };
  const message = outcome.message as { method: string; params?: JsonObject };
  if (revision === undefined) {
    const error = new UnsupportedProtocolVersionError({ supported: [MODERN_VERSION], requested: 'unknown' });
    return {
      refused: { status: 400, error: { code: error.code, message: error.message, data: error.data } },
    };
  }
  if (headers !== undefined) {
    const refused = standardHeaderRefusal(headers, message.method, message.params);
    if (refused !== undefined) return { refused };
  }
  // The SDK validated this envelope: remember it, and read it.
  const meta = metaOf(message.params) as JsonObject;
  return { era: 'modern', envelope: remember(meta) };
}

// Envelopes the SDK's classifier accepted: a client sends the same one on every request, so its schema check
// runs once per distinct envelope. Keyed by the reserved keys only (the rest of `_meta` passes any check:
// progress tokens, trace context and extension keys vary per request). Bounded; emptied when full.
const accepted = new Map<string, Envelope>();
const MAX_ENVELOPES = 256;
let last: { readonly meta: JsonObject; readonly envelope: Envelope } | undefined;

/** The envelope of `meta` when one like it was accepted before and its progress token is well-formed. */
function acceptedEnvelope(meta: JsonObject): Envelope | undefined {
  const token = meta.progressToken;
  if (
    token !== undefined &&
    typeof token !== 'string' &&
    !(typeof token === 'number' && Number.isInteger(token))
  ) {
    return undefined;
  }
  if (last !== undefined && sameReserved(meta, last.meta)) return last.envelope;
  const envelope = accepted.get(reservedKey(meta));
  if (envelope !== undefined) last = { meta, envelope };
  return envelope;
}

function remember(meta: JsonObject): Envelope {
  const key = reservedKey(meta);
  let envelope = accepted.get(key);
  if (envelope === undefined) {
    const copy = JSON.parse(key) as JsonObject;
    envelope = Object.freeze({
      protocolVersion: copy[Meta.protocolVersion] as string,
      clientCapabilities: (copy[Meta.clientCapabilities] ?? {}) as ClientCapabilities,
      clientInfo: copy[Meta.clientInfo] as Implementation | undefined,
      logLevel: copy[Meta.logLevel] as LoggingLevel | undefined,
    });
    if (accepted.size >= MAX_ENVELOPES) accepted.clear();
    accepted.set(key, envelope);
  }
  last = { meta: JSON.parse(key) as JsonObject, envelope };
  return envelope;
}

const RESERVED = [Meta.protocolVersion, Meta.clientInfo, Meta.clientCapabilities, Meta.logLevel] as const;

function reservedKey(meta: JsonObject): string {
  const reserved: JsonObject = {};
  for (const key of RESERVED) if (key in meta) reserved[key] = meta[key];
  return JSON.stringify(reserved);
}

/** Whether the reserved keys of `meta` hold the same JSON as those of `known` (a parsed copy). */
function sameReserved(meta: JsonObject, known: JsonObject): boolean {
  for (const key of RESERVED) {
    if (key in meta !== key in known) return false;
    if (!sameJson(meta[key], known[key], 0)) return false;
  }
  return true;
}

function sameJson(value: unknown, known: unknown, depth: number): boolean {
  if (value === known) return true;
  if (typeof value !== 'object' || value === null || typeof known !== 'object' || known === null)
    return false;
  if (depth > 8) return false;
  if (Array.isArray(known)) {
    if (!Array.isArray(value) || value.length !== known.length) return false;
    for (let i = 0; i < known.length; i++) if (!sameJson(value[i], known[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(value)) return false;
  const object = value as JsonObject;
  const other = known as JsonObject;
  let keys = 0;
  for (const key in object) {
    if (!Object.hasOwn(other, key) || !sameJson(object[key], other[key], depth + 1)) return false;
    keys += 1;
  }
  let knownKeys = 0;
  for (const _ in other) knownKeys += 1;
  return keys === knownKeys;
}

/** Which body field `Mcp-Name` mirrors, per method (SEP-2243, and SEP-2663 for tasks). */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/**
 * The SEP-2243 standard-header checks of a 2026-07-28 request over HTTP: `MCP-Protocol-Version` and
 * `Mcp-Method` present and naming what the body does, and `Mcp-Name` present and equal to the name, URI or
 * task id the body carries (it may be Base64-encoded). Refused with 400 and `-32020`.
 */
export function standardHeaderRefusal(
  headers: HeaderReader,
  method: string,
  params: JsonObject | undefined,
): Refusal | undefined {
  const claimed = metaOf(params)?.[Meta.protocolVersion];
  const version = headers('mcp-protocol-version');
  const methodHeader = headers('mcp-method');
  // Disagreements first, then absences: the SDK's order (its classifier, then its entry's presence rung).
  const trimmedVersion = version === undefined ? undefined : stripOws(version);
  if (trimmedVersion !== undefined && typeof claimed === 'string' && trimmedVersion !== claimed) {
    return mismatch(
      trimmedVersion,
      `the body envelope names protocol version ${claimed} but the MCP-Protocol-Version header names ${trimmedVersion}`,
    );
  }
  const trimmedMethod = methodHeader === undefined ? undefined : stripOws(methodHeader);
  if (trimmedMethod !== undefined && trimmedMethod !== method) {
    return mismatch(
      trimmedMethod,
      `the body names method ${method} but the Mcp-Method header names ${trimmedMethod}`,
    );
  }
  if (version === undefined) {
    return mismatch(
      '(missing)',
      typeof claimed === 'string'
        ? `the body envelope names protocol version ${claimed} but the required MCP-Protocol-Version header is absent`
        : 'the body carries a modern per-request envelope but the required MCP-Protocol-Version header is absent',
    );
  }
  if (methodHeader === undefined) {
    return mismatch(
      '(missing)',
      `the body names method ${method} but the required Mcp-Method header is absent`,
    );
  }
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  if (field === undefined) return undefined;
  const raw = params?.[field];
  const bodyValue = typeof raw === 'string' ? raw : undefined;
  const nameHeader = headers('mcp-name');
  if (nameHeader === undefined) {
    if (bodyValue === undefined) return undefined;
    return mismatch(
      '(missing)',
      `the body carries params.${field}="${bodyValue}" but the required Mcp-Name header is absent`,
    );
  }
  const trimmedName = stripOws(nameHeader);
  if (trimmedName === bodyValue) return undefined;
  const decoded = decodeHeaderValue(trimmedName);
  if (decoded === undefined) {
    return mismatch(trimmedName, 'the Mcp-Name header carries an invalid Base64 sentinel value');
  }
  if (bodyValue !== undefined && decoded !== bodyValue) {
    return mismatch(
      trimmedName,
      `the body carries params.${field}="${bodyValue}" but the Mcp-Name header names "${decoded}"`,
    );
  }
  return undefined;
}

/** A `-32020` header/body disagreement, answered 400. */
export function mismatch(header: string, body: string): Refusal {
  return {
    status: 400,
    error: {
      code: ErrorCode.HeaderMismatch,
      message: `Bad Request: the request headers and body disagree: ${body}`,
      data: { mismatch: { header, body } },
    },
  };
}

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * An `Mcp-Name` or `Mcp-Param-*` header value as sent: a `=?base64?…?=` sentinel is decoded (canonical
 * Base64 of UTF-8, or `undefined`), anything else is the value itself.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const encoded = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(encoded)) return undefined;
  try {
    const binary = atob(encoded);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** RFC 9110 optional whitespace around a field value. */
function stripOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** Whether `version` is one this engine serves: the modern revision, or a 2025 one it negotiates. */
export function isServedVersion(version: string): boolean {
  return version === MODERN_VERSION || isLegacyVersion(version);
}
