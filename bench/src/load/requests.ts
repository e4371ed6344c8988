// The exact requests the bench sends, for both protocol eras. The modern (2026-07-28) envelope is
// what the SDK v2 Client sends once it negotiated that revision (envelope.test.ts keeps it honest):
// routing headers `Mcp-Method`/`Mcp-Name` beside `MCP-Protocol-Version`, and the per-request
// `_meta` claim (protocol version, client info, client capabilities) inside `params`.

/**
 * Which request shape a measurement sends. `canned` is the raw ceiling's: any POST. `input-required` is
 * the two-round 2026-07-28 exchange of a tool that asks once (`confirm_echo`): the call, answered
 * `input_required` with a `requestState`, then the same call again with the answer and that state.
 */
export const ERAS = ['modern', 'legacy', 'canned', 'input-required'] as const;
export type Era = (typeof ERAS)[number];

export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSION = '2025-11-25';
export const ECHO_TEXT = 'hello';
export const CLIENT_INFO = { name: 'pier-bench', version: '1.0.0' } as const;

/** One HTTP request: headers and a JSON body as text. */
export interface McpRequest {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Which tools/call a measurement sends (issue 31's tool shapes): the tool, its arguments, and whether the
 * client asks for progress (a `progressToken` in `_meta`, the request id as the SDK clients use it) and
 * for log messages (2026-07-28: `logLevel` in the request's envelope; 2025: `logging/setLevel` once per
 * session, see {@link openSession}). The default is `echo` with `{ text: "hello" }`.
 */
export interface CallShape {
  readonly tool: string;
  readonly arguments?: Readonly<Record<string, unknown>>;
  readonly progress?: boolean;
  readonly logLevel?: LogLevel;
}

export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error';

export const ECHO_CALL: CallShape = { tool: 'echo' };
const ECHO_ARGUMENTS = { text: ECHO_TEXT };
const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel';

const BOTH = 'application/json, text/event-stream';

/** tools/call echo as a 2026-07-28 client sends it (no session, no initialize). */
export function modernEcho(id: number): McpRequest {
  return modernCall(id, ECHO_CALL, {}, {});
}

/** The tool that asks once before it echoes (Pier's bench server with BENCH_INPUT_REQUIRED=1). */
export const ASKING_TOOL = 'confirm_echo';

/** Round one of the input-required exchange: the call, from a client that declares elicitation. */
export function askingCall(id: number): McpRequest {
  return modernCall(id, ASKING_CALL, { elicitation: {} }, {});
}

const ASKING_CALL: CallShape = { tool: ASKING_TOOL };

/** Round two: the same call with the user's answer to the question `key` and the server's state. */
export function askingRetry(id: number, key: string, requestState: string): McpRequest {
  return modernCall(
    id,
    ASKING_CALL,
    { elicitation: {} },
    { inputResponses: { [key]: { action: 'accept', content: { confirm: true } } }, requestState },
  );
}

/** What round one's answer carries for round two, or undefined if it is not an input-required result. */
export function inputRequired(message: unknown): { key: string; requestState: string } | undefined {
  const result = (message as { result?: Record<string, unknown> }).result;
  if (result?.resultType !== 'input_required' || typeof result.requestState !== 'string') return undefined;
  const [key] = Object.keys((result.inputRequests ?? {}) as object);
  return key === undefined ? undefined : { key, requestState: result.requestState };
}

/** A 2026-07-28 tools/call of `call` (no session, no initialize). */
export function modernCall(
  id: number,
  call: CallShape,
  clientCapabilities: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): McpRequest {
  return {
    headers: {
      'content-type': 'application/json',
      accept: BOTH,
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': call.tool,
    },
    body: JSON.stringify({
      method: 'tools/call',
      params: {
        name: call.tool,
        arguments: call.arguments ?? ECHO_ARGUMENTS,
        ...extra,
        _meta: {
          ...(call.progress === true && { progressToken: id }),
          'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
          'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
          'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
          ...(call.logLevel !== undefined && { [LOG_LEVEL_META]: call.logLevel }),
        },
      },
      jsonrpc: '2.0',
      id,
    }),
  };
}

/** tools/call echo as a 2025-11-25 client sends it: in a session when `sessionId` is given. */
export function legacyEcho(id: number, sessionId?: string): McpRequest {
  return legacyCall(id, ECHO_CALL, sessionId);
}

/**
 * A 2025-11-25 tools/call of `call`: in a session when `sessionId` is given. Its log level, if any, is the
 * session's (`logging/setLevel` when it was opened), not part of the request.
 */
export function legacyCall(id: number, call: CallShape, sessionId?: string): McpRequest {
  return {
    headers: {
      'content-type': 'application/json',
      accept: BOTH,
      'mcp-protocol-version': LEGACY_VERSION,
      ...(sessionId !== undefined && { 'mcp-session-id': sessionId }),
    },
    body: JSON.stringify({
      method: 'tools/call',
      params: {
        name: call.tool,
        arguments: call.arguments ?? ECHO_ARGUMENTS,
        ...(call.progress === true && { _meta: { progressToken: id } }),
      },
      jsonrpc: '2.0',
      id,
    }),
  };
}

/**
 * The request of `era` calling `call` (echo by default; round one of `input-required`); `canned` sends
 * the legacy shape, which the ceiling does not read.
 */
export function echoRequest(
  era: Era,
  id: number,
  sessionId?: string,
  call: CallShape = ECHO_CALL,
): McpRequest {
  if (era === 'input-required') return askingCall(id);
  return era === 'modern' ? modernCall(id, call) : legacyCall(id, call, sessionId);
}

/** How {@link openSession} opens a session. */
export interface SessionOptions {
  /** Sent on every request (an `Authorization` for a protected server). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Asks for log messages at this level (`logging/setLevel`) once the session is open. */
  readonly logLevel?: LogLevel | undefined;
}

/**
 * Opens a 2025-era session the way the SDK clients do: `initialize`, then `notifications/initialized`
 * with the session id the server minted (and `logging/setLevel` when asked). Resolves with that id.
 */
export async function openSession(endpoint: string, options: SessionOptions = {}): Promise<string> {
  const extra = options.headers;
  const init = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: BOTH, ...extra },
    body: JSON.stringify({
      method: 'initialize',
      params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
      jsonrpc: '2.0',
      id: 0,
    }),
  });
  const sessionId = init.headers.get('mcp-session-id');
  await init.text();
  if (!init.ok || !sessionId)
    throw new Error(`initialize: HTTP ${init.status}, session id ${String(sessionId)}`);
  const headers = {
    'content-type': 'application/json',
    accept: BOTH,
    'mcp-protocol-version': LEGACY_VERSION,
    'mcp-session-id': sessionId,
    ...extra,
  };
  const initialized = await fetch(endpoint, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  if (initialized.status !== 202 && initialized.status !== 200) {
    throw new Error(`notifications/initialized: HTTP ${initialized.status}`);
  }
  if (options.logLevel !== undefined) {
    const set = await fetch(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        method: 'logging/setLevel',
        params: { level: options.logLevel },
        jsonrpc: '2.0',
        id: 1,
      }),
    });
    const text = await set.text();
    const answer = set.ok ? (parseRpc(set.headers.get('content-type'), text) as { result?: unknown }) : {};
    if (answer.result === undefined)
      throw new Error(`logging/setLevel: HTTP ${set.status}: ${text.slice(0, 200)}`);
  }
  return sessionId;
}

/**
 * The JSON-RPC response of a response body, whether it came as JSON or as an SSE stream (whose events
 * before the response, such as progress and log notifications, are skipped: {@link rpcMessages} has them).
 */
export function parseRpc(contentType: string | null, text: string): unknown {
  const messages = rpcMessages(contentType, text);
  const response = messages.find(
    (message) => typeof message === 'object' && message !== null && 'id' in message && !('method' in message),
  );
  if (response === undefined) throw new Error(`no JSON-RPC response in the body: ${text.slice(0, 200)}`);
  return response;
}

/** Every JSON-RPC message of a response body: the one JSON body, or each SSE event's data in order. */
export function rpcMessages(contentType: string | null, text: string): unknown[] {
  if (!contentType?.startsWith('text/event-stream')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as unknown);
}

/** The text of the first content item of a tools/call result, or undefined. */
export function echoedText(message: unknown): string | undefined {
  const result = (message as { result?: { content?: { type?: string; text?: string }[] } }).result;
  const first = result?.content?.[0];
  return first?.type === 'text' ? first.text : undefined;
}
