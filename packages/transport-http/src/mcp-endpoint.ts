import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AuthInfo,
  classifyInboundRequest,
  createMcpHandler,
  type DirectCallOutcome,
  type DirectToolCalls,
  type HttpRefusal,
  isJsonContentType,
  type JSONRPCMessage,
  type Logger,
  type McpHttpHandler,
  messageOf,
  PROTOCOL_VERSION_META_KEY,
  parseJSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
  type TransportHost,
} from '@pier/core/transport';
import { readBody, refuseOversizedBody } from './body.js';
import type { Exchange, ExchangeTracker } from './drain.js';
import { echoId, headerValue, JSONRPC, sendJsonError } from './json-errors.js';
import { LegacySessions } from './legacy-sessions.js';
import { LegacyTransport } from './legacy-transport.js';
import type { ResolvedHttpOptions } from './options.js';
import type { Clock } from './sessions.js';
import { lazyRequest, sendWebResponse } from './web.js';

/** Dependencies of the MCP endpoint. */
export interface McpEndpointContext {
  readonly host: TransportHost;
  readonly options: ResolvedHttpOptions;
  readonly clock: Clock;
  readonly tracker: ExchangeTracker;
  readonly logger: Logger;
  /** `http://host:port` of the listener. */
  readonly origin: () => string;
}

/** The MCP endpoint: answers every request routed to it, never throws. */
export interface McpEndpoint {
  handle(req: IncomingMessage, res: ServerResponse, exchange: Exchange): void;
  start(): void;
  /** Stops serving: aborts what is still in flight in the SDK and closes every session. */
  close(): Promise<void>;
}

/**
 * Serves both protocol eras from one path. The body is read once under the size limit and parsed once,
 * then the SDK's own classifier (`classifyInboundRequest`, what `createMcpHandler` runs) picks the era:
 * 2026-07-28 requests, and the classifier's rejections, go to the SDK's `createMcpHandler` with the body as
 * `parsedBody`; 2025-era requests go to a fresh SDK server on a node-native {@link LegacyTransport}
 * (stateless), or to their session's server ({@link LegacySessions}) when sessions are on.
 */
export function createMcpEndpoint(context: McpEndpointContext): McpEndpoint {
  const { host, options, tracker, logger } = context;
  const handler: McpHttpHandler = createMcpHandler(
    () => host.createMcpServer({ era: 'modern', lifetime: 'request' }),
    {
      // 2025-era traffic never reaches it: it is classified first and served by LegacyTransport.
      legacy: 'reject',
      maxRequestBodySize: options.maxBodyBytes,
      onerror: (error) => logger.debug('MCP request refused or failed', { error: error.message }),
      // 2026-07-28 clients hear about changes on their `subscriptions/listen` streams, which the handler
      // owns: it listens to the server's event bus, where every change is published.
      bus: host.events,
    },
  );
  const sessions = options.sessions ? new LegacySessions(context) : undefined;
  const authenticator = host.authenticator;
  // Stateless `tools/call` without an SDK server per request (core decides which tools qualify). With an
  // authenticator too: it has run (and refused what it refuses) before the body is read.
  const direct = host.directToolCalls;
  let closed = false;

  /**
   * The direct path's outcome for an everyday stateless `tools/call` (see {@link directCall}); `true`
   * when it answered, otherwise the web request to serve it with through the SDK (a registered replay, so
   * the tool does not run twice) or `undefined` (the SDK serves it from the start).
   */
  const tryDirect = async (
    res: ServerResponse,
    request: Request,
    outcome: Promise<DirectCallOutcome>,
    id: unknown,
  ): Promise<true | Request> => {
    const settled = await outcome;
    if ('result' in settled) {
      if (!res.destroyed) {
        const text = JSON.stringify({ result: settled.result, jsonrpc: '2.0', id });
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(text)),
        });
        res.end(text);
      }
      return true;
    }
    (direct as NonNullable<typeof direct>).replay(request, settled.replay);
    return request;
  };

  const serveWithHandler = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    exchange: Exchange,
    authInfo: AuthInfo | undefined,
    request: Request = lazyRequest(req, context.origin(), res),
  ): Promise<void> => {
    // Its signal aborts if the client goes away, which stops the SDK's exchange; no web Request is built
    // unless a handler reads more than the headers.
    const response = await handler.fetch(
      request,
      authInfo === undefined ? { parsedBody: body } : { parsedBody: body, authInfo },
    );
    if (response.status >= 500) logger.warn('MCP request failed', { status: response.status });
    // The SDK's scope challenge (403 insufficient_scope, before dispatch) says nothing of caching.
    if (response.headers.has('www-authenticate')) response.headers.set('cache-control', 'no-store');
    if (exchange.longLived && host.reportStream !== undefined && !res.destroyed) {
      // A listen request the SDK accepted answers with an event stream, open until either side leaves.
      if (response.headers.get('content-type')?.startsWith('text/event-stream') === true) {
        res.once('close', host.reportStream({ kind: 'listen' }));
      }
    }
    await sendWebResponse(res, response, exchange);
  };

  /** A 2025-era request without sessions: a fresh SDK server for this one exchange, closed after it. */
  const serveStateless = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    exchange: Exchange,
    messages: readonly JSONRPCMessage[] | undefined,
    authInfo: AuthInfo | undefined,
    request: Request = lazyRequest(req, context.origin(), res),
  ): Promise<void> => {
    // It serves one request: it must not advertise subscriptions, whose updates could never reach the client.
    const server = host.createMcpServer({ subscriptions: false, era: 'legacy', lifetime: 'request' });
    const transport = new LegacyTransport();
    transport.onerror = (error) => logger.debug('MCP request refused or failed', { error: error.message });
    await server.connect(transport);
    // Closing when the response closes also stops the handler of a client that went away.
    res.once('close', () => {
      server
        .close()
        .catch((error: unknown) => logger.warn('closing an SDK server failed', { error: String(error) }));
    });
    await transport.handlePost(req, res, body, exchange, request, messages, authInfo);
  };

  const serve = async (req: IncomingMessage, res: ServerResponse, exchange: Exchange): Promise<void> => {
    let authInfo: AuthInfo | undefined;
    if (authenticator !== undefined) {
      // Before the body is read: a refused request costs no parsing.
      let outcome = authenticate(authenticator, req, logger);
      if (outcome instanceof Promise) outcome = await outcome;
      if ('refusal' in outcome) {
        sendRefusal(req, res, outcome.refusal);
        return;
      }
      authInfo = outcome.authInfo;
    }
    if (req.method !== 'POST') {
      // GET (the session's stream) and DELETE only reach the endpoint in sessionful mode.
      if (req.method === 'GET') tracker.promote(exchange);
      await (sessions as LegacySessions).serve(req, res, undefined, exchange, undefined, authInfo);
      return;
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      sendJsonError(
        res,
        415,
        JSONRPC.serverError,
        'Unsupported Media Type: Content-Type must be application/json',
      );
      return;
    }
    const read = await readBody(req, options.maxBodyBytes);
    if (!read.ok) {
      if (read.reason === 'too-large') refuseOversizedBody(req, res, options.maxBodyBytes);
      else res.destroy();
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(read.text);
    } catch {
      const message =
        read.text.trim() === ''
          ? 'Parse error: the request body is empty'
          : 'Parse error: the request body is not valid JSON';
      sendJsonError(res, 400, JSONRPC.parseError, message);
      return;
    }
    if (sessions !== undefined && direct !== undefined && !closed) {
      // A 2025-era call on a session: the session may answer it directly (see LegacySessions.serve). Such a
      // body has no `_meta`, so directCall (2026-07-28 only, with sessions on) would not take it.
      const toolCall = legacyToolCall(req, body);
      if (toolCall !== undefined) {
        await sessions.serve(req, res, body, exchange, undefined, authInfo, toolCall);
        return;
      }
    }
    const call =
      direct !== undefined && !closed
        ? directCall(
            direct,
            req,
            body,
            sessions === undefined,
            authInfo,
            lazyRequest(req, context.origin(), res),
          )
        : undefined;
    if (call !== undefined) {
      const request = await tryDirect(res, call.request, call.outcome, (body as { id: unknown }).id);
      if (request === true) return;
      // The SDK writes the result the tool gave (see DirectToolCalls.replay).
      if (call.era === 'modern') await serveWithHandler(req, res, body, exchange, authInfo, request);
      else await serveStateless(req, res, body, exchange, plainLegacyMessage(req, body), authInfo, request);
      return;
    }
    const legacy = plainLegacyMessage(req, body);
    if (legacy !== undefined) {
      if (sessions !== undefined) await sessions.serve(req, res, body, exchange, legacy, authInfo);
      else await serveStateless(req, res, body, exchange, legacy, authInfo);
      return;
    }
    const outcome = claimsModernEnvelope(body)
      ? undefined
      : classifyInboundRequest({
          httpMethod: 'POST',
          ...header(req, 'mcp-protocol-version', 'protocolVersionHeader'),
          ...header(req, 'mcp-method', 'mcpMethodHeader'),
          ...header(req, 'mcp-name', 'mcpNameHeader'),
          body,
        });
    if (outcome?.kind === 'legacy') {
      if (sessions !== undefined) await sessions.serve(req, res, body, exchange, undefined, authInfo);
      else await serveStateless(req, res, body, exchange, undefined, authInfo);
      return;
    }
    if (isListenRequest(body)) tracker.promote(exchange);
    await serveWithHandler(req, res, body, exchange, authInfo);
  };

  return {
    handle(req, res, exchange) {
      serve(req, res, exchange).catch((error: unknown) => {
        logger.error('MCP request crashed', {
          error: messageOf(error),
        });
        sendJsonError(res, 500, JSONRPC.internalError, 'Internal error', { id: null });
      });
    },
    start() {
      sessions?.start();
    },
    async close() {
      closed = true;
      await handler.close();
      await sessions?.closeAll();
    },
  };
}

const MODERN = '2026-07-28';
/** The envelope's keys (`protocolVersion`, `clientInfo`, `clientCapabilities`): any other goes to the SDK. */
const MODERN_META_KEYS: ReadonlySet<string> = new Set([
  PROTOCOL_VERSION_META_KEY,
  'io.modelcontextprotocol/clientInfo',
  'io.modelcontextprotocol/clientCapabilities',
]);

/** W3C trace context keys a 2026-07-28 client may put in `_meta` beside the envelope. */
const TRACE_META_KEYS: ReadonlySet<string> = new Set(['traceparent', 'tracestate', 'baggage']);

/** `meta` without its trace context keys. */
function envelopeOf(meta: Record<string, unknown>): Record<string, unknown> {
  const envelope: Record<string, unknown> = {};
  for (const key in meta) if (MODERN_META_KEYS.has(key)) envelope[key] = meta[key];
  return envelope;
}

/**
 * Envelopes (`_meta` as JSON) the SDK's classifier accepted on a direct call: a client sends the same one
 * on every call, so its validation (zod) runs once per distinct envelope. Bounded; emptied when full.
 */
const acceptedEnvelopes = new Set<string>();
const MAX_ENVELOPES = 256;
/** The envelope accepted most recently (parsed from its memo key), without trace context keys. */
let lastEnvelope: Record<string, unknown> | undefined;

/**
 * Whether `meta`, its trace context keys aside, is `accepted` as JSON: the same keys (in any order) and
 * values. `accepted` came from `JSON.parse` and so does `meta` (the request body), so both hold only JSON
 * values; nesting deeper than a few levels is never taken for equal (it is then serialised and looked up).
 */
function sameEnvelope(meta: Record<string, unknown>, accepted: Record<string, unknown>): boolean {
  let keys = 0;
  for (const key in meta) {
    if (TRACE_META_KEYS.has(key)) continue;
    if (!Object.hasOwn(accepted, key) || !sameJson(meta[key], accepted[key], 0)) return false;
    keys += 1;
  }
  return keys === countKeys(accepted);
}

function sameJson(value: unknown, accepted: unknown, depth: number): boolean {
  if (value === accepted) return true;
  if (typeof value !== 'object' || value === null || typeof accepted !== 'object' || accepted === null) {
    return false;
  }
  if (depth > 8) return false;
  if (Array.isArray(accepted)) {
    if (!Array.isArray(value) || value.length !== accepted.length) return false;
    for (let i = 0; i < accepted.length; i++) if (!sameJson(value[i], accepted[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(value)) return false;
  const object = value as Record<string, unknown>;
  const other = accepted as Record<string, unknown>;
  let keys = 0;
  for (const key in object) {
    if (!Object.hasOwn(other, key) || !sameJson(object[key], other[key], depth + 1)) return false;
    keys += 1;
  }
  return keys === countKeys(other);
}

function countKeys(object: Record<string, unknown>): number {
  let keys = 0;
  for (const _ in object) keys += 1;
  return keys;
}

/**
 * Hands an everyday stateless `tools/call` to the direct path, once it has passed every check the SDK makes
 * before its tool dispatch; `undefined` for anything else, which the SDK serves as before. The body has
 * exactly `jsonrpc` "2.0", a string or integer `id`, `method` and plain-object `params` with a string `name`
 * and plain-object or absent `arguments` — a JSON-RPC request by the SDK's schema. 2025-era (only when
 * `legacyStateless`): no `_meta`, no or a 2025 `MCP-Protocol-Version` (what {@link plainLegacyMessage} takes),
 * and the `Accept` the transport requires. 2026-07-28: `_meta` is the envelope's three keys (plus string trace context keys), naming
 * 2026-07-28; `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` are present and name exactly what the
 * body does (so the SDK's header cross-checks pass), and the SDK's classifier accepted this envelope.
 */
export function directCall(
  direct: DirectToolCalls,
  req: IncomingMessage,
  body: unknown,
  legacyStateless: boolean,
  authInfo: AuthInfo | undefined,
  request: Request,
):
  | {
      readonly era: 'modern' | 'legacy';
      readonly outcome: Promise<DirectCallOutcome>;
      /** The web request observers saw; the SDK serves a replay with it. */
      readonly request: Request;
    }
  | undefined {
  const call = toolCallOf(body);
  if (call === undefined) return undefined;
  const { id, name, args, params } = call;
  const meta = params._meta;
  if (meta === undefined) {
    if (!legacyStateless || !acceptedLegacyCall(req, params)) return undefined;
    const outcome = direct.call(name, args, 'legacy', { id, params, request, authInfo });
    return outcome && { era: 'legacy', outcome, request };
  }
  const headers = req.headers;
  for (const key in params) if (key !== 'name' && key !== 'arguments' && key !== '_meta') return undefined;
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN) return undefined;
  let traced = false;
  for (const key in meta) {
    if (MODERN_META_KEYS.has(key)) continue;
    // Trace context (W3C keys, as OpenTelemetry's MCP conventions carry it): the tool cannot see it,
    // observers read it from `params`; anything else in `_meta` goes to the SDK.
    if (!TRACE_META_KEYS.has(key) || typeof meta[key] !== 'string') return undefined;
    traced = true;
  }
  if (
    headers['mcp-protocol-version'] !== MODERN ||
    headers['mcp-method'] !== 'tools/call' ||
    headers['mcp-name'] !== name
  ) {
    return undefined;
  }
  // The trace keys differ on every call and say nothing the classifier checks: not part of the memo's key.
  // The envelope accepted last is compared first, as parsed values: no serialisation for a client that
  // sends the same envelope again.
  if (lastEnvelope === undefined || !sameEnvelope(meta, lastEnvelope)) {
    const envelope = JSON.stringify(traced ? envelopeOf(meta) : meta);
    if (!acceptedEnvelopes.has(envelope)) {
      const classified = classifyInboundRequest({
        httpMethod: 'POST',
        protocolVersionHeader: MODERN,
        mcpMethodHeader: 'tools/call',
        mcpNameHeader: name,
        body,
      });
      if (classified.kind !== 'modern' || classified.classification.revision !== MODERN) return undefined;
      if (acceptedEnvelopes.size >= MAX_ENVELOPES) acceptedEnvelopes.clear();
      acceptedEnvelopes.add(envelope);
    }
    // A copy of its own: nothing that later reads (or changes) this request's params can change the memo.
    lastEnvelope = JSON.parse(envelope) as Record<string, unknown>;
  }
  const outcome = direct.call(name, args, 'modern', { id: id as string | number, params, request, authInfo });
  return outcome && { era: 'modern', outcome, request };
}

/** A 2025-era `tools/call` the direct path may answer: what the tool is called with, and the request id. */
export interface LegacyToolCall {
  readonly id: string | number;
  readonly name: string;
  readonly args: Record<string, unknown> | undefined;
  /** The request's `params`, as sent (what observers are told). */
  readonly params: Record<string, unknown>;
}

/**
 * The everyday 2025-era `tools/call` (what {@link directCall} takes for stateless serving, also used by
 * sessions): the request shape it checks, no `_meta`, no or a 2025 `MCP-Protocol-Version`, and the `Accept`
 * the transport requires. `undefined` for anything else.
 */
export function legacyToolCall(req: IncomingMessage, body: unknown): LegacyToolCall | undefined {
  const call = toolCallOf(body);
  if (call === undefined || call.params._meta !== undefined) return undefined;
  if (!acceptedLegacyCall(req, call.params)) return undefined;
  return call;
}

/**
 * The body has exactly `jsonrpc` "2.0", a string or integer `id`, `method` "tools/call" and plain-object
 * `params` with a string `name` and plain-object or absent `arguments`: a JSON-RPC request by the SDK's schema.
 */
function toolCallOf(body: unknown):
  | {
      readonly id: string | number;
      readonly name: string;
      readonly args: Record<string, unknown> | undefined;
      readonly params: Record<string, unknown>;
    }
  | undefined {
  if (!isPlainObject(body) || body.method !== 'tools/call' || body.jsonrpc !== '2.0') return undefined;
  for (const key in body) if (!REQUEST_KEYS.has(key)) return undefined;
  const id = body.id;
  if (typeof id !== 'string' && !Number.isInteger(id)) return undefined;
  const params = body.params;
  if (!isPlainObject(params)) return undefined;
  const name = params.name;
  const args = params.arguments;
  if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return undefined;
  return { id: id as string | number, name, args, params };
}

/** A 2025-era call's params (only `name`, `arguments`), protocol version header and `Accept`. */
function acceptedLegacyCall(req: IncomingMessage, params: Record<string, unknown>): boolean {
  for (const key in params) if (key !== 'name' && key !== 'arguments') return false;
  const headers = req.headers;
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !LEGACY_VERSIONS.has(version as string)) return false;
  const accept = headers.accept ?? '';
  return accept.includes('application/json') && accept.includes('text/event-stream');
}

const REQUEST_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * A request or notification (not `initialize`, not a posted answer) whose params carry the 2026-07-28
 * envelope claim: the SDK's classifier never routes it to 2025-era serving (it serves or rejects it on the
 * modern path), and `createMcpHandler` classifies it again anyway, so the first classification is skipped.
 */
export function claimsModernEnvelope(body: unknown): boolean {
  if (!isPlainObject(body) || 'result' in body || 'error' in body) return false;
  if (typeof body.method !== 'string' || body.method === 'initialize') return false;
  const params = body.params;
  return isPlainObject(params) && isPlainObject(params._meta) && PROTOCOL_VERSION_META_KEY in params._meta;
}

/**
 * The 2025-era request or notification of everyday traffic, checked as a JSON-RPC message: a single
 * message that is not `initialize`, not an answer, carries no 2026-07-28 envelope claim and names no
 * protocol version but one of the 2025 ones the SDK supports. For every such body the SDK's classifier
 * (`classifyInboundRequest`) answers "legacy" exactly when the message passes `parseJSONRPCMessage` —
 * its JSON-RPC schemas are strict, so without `result` or `error` only a request or a notification can
 * pass — and the transport needs that parse anyway: one schema check instead of four. `undefined` for
 * anything else (the classifier then decides, as before).
 */
export function plainLegacyMessage(req: IncomingMessage, body: unknown): JSONRPCMessage[] | undefined {
  if (!isPlainObject(body) || 'result' in body || 'error' in body) return undefined;
  if (typeof body.method !== 'string' || body.method === 'initialize') return undefined;
  const params = body.params;
  if (isPlainObject(params) && isPlainObject(params._meta) && PROTOCOL_VERSION_META_KEY in params._meta) {
    return undefined;
  }
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && (typeof version !== 'string' || !LEGACY_VERSIONS.has(version)))
    return undefined;
  try {
    return [parseJSONRPCMessage(body)];
  } catch {
    return undefined;
  }
}

/** The SDK's `initialize` list: 2025-era revisions only (it never names a 2026-07-28 one). */
const LEGACY_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `subscriptions/listen` streams stay open until the client leaves: the drain ends them, never waits. */
function isListenRequest(body: unknown): boolean {
  return (
    body !== null &&
    typeof body === 'object' &&
    (body as { method?: unknown }).method === 'subscriptions/listen' &&
    echoId(body) !== null
  );
}

function header<K extends string>(req: IncomingMessage, name: string, key: K): { [P in K]?: string } {
  const value = headerValue(req, name);
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

type AuthOutcome = { readonly authInfo: AuthInfo } | { readonly refusal: HttpRefusal };

/**
 * Runs the authenticator; one that throws is a 500 that names nothing of the request. An authenticator
 * that decides at once (a verified-token cache hit) is answered at once: no promise, no extra tick.
 */
function authenticate(
  authenticator: NonNullable<TransportHost['authenticator']>,
  req: IncomingMessage,
  logger: Logger,
): AuthOutcome | Promise<AuthOutcome> {
  let outcome: unknown;
  try {
    outcome = authenticator.authenticate(req);
  } catch (error) {
    logger.error('the authenticator failed', { error: messageOf(error) });
    return AUTHENTICATOR_FAILED;
  }
  if (outcome instanceof Promise) {
    return outcome.then(
      (settled: unknown) => checkedOutcome(settled, logger),
      (error: unknown) => {
        logger.error('the authenticator failed', { error: messageOf(error) });
        return AUTHENTICATOR_FAILED;
      },
    );
  }
  return checkedOutcome(outcome, logger);
}

const AUTHENTICATOR_FAILED: AuthOutcome = {
  refusal: {
    status: 500,
    body: { jsonrpc: '2.0', error: { code: JSONRPC.internalError, message: 'Internal error' }, id: null },
  },
};

function checkedOutcome(outcome: unknown, logger: Logger): AuthOutcome {
  if (outcome !== null && typeof outcome === 'object' && ('authInfo' in outcome || 'refusal' in outcome)) {
    return outcome as AuthOutcome;
  }
  logger.error('the authenticator returned neither authInfo nor refusal');
  return AUTHENTICATOR_FAILED;
}

/** Sends an authenticator's refusal: its status, headers and JSON body, never cached. */
function sendRefusal(req: IncomingMessage, res: ServerResponse, refusal: HttpRefusal): void {
  const body = refusal.body === undefined ? '' : JSON.stringify(refusal.body);
  res.writeHead(refusal.status, {
    'cache-control': 'no-store',
    ...(body !== '' && { 'content-type': 'application/json' }),
    'content-length': Buffer.byteLength(body),
    // The body of the refused request was never read: do not read it as the next request's.
    ...(req.method === 'POST' && { connection: 'close' }),
    ...refusal.headers,
  });
  res.end(body);
}
