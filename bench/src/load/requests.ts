// The exact requests the bench sends, for both protocol eras. The modern (2026-07-28) envelope is
// what the SDK v2 Client sends once it negotiated that revision (envelope.test.ts keeps it honest):
// routing headers `Mcp-Method`/`Mcp-Name` beside `MCP-Protocol-Version`, and the per-request
// `_meta` claim (protocol version, client info, client capabilities) inside `params`.

/**
 * Which request shape a measurement sends. `canned` is the raw ceiling's: any POST. `input-required` is
 * the two-round 2026-07-28 exchange of a tool that asks once (`confirm_echo`): the call, answered
 * `input_required` with a `requestState`, then the same call again with the answer and that state.
 */
export type Era = 'modern' | 'legacy' | 'canned' | 'input-required';

export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSION = '2025-11-25';
export const ECHO_TEXT = 'hello';
export const CLIENT_INFO = { name: 'pier-bench', version: '1.0.0' } as const;

/** One HTTP request: headers and a JSON body as text. */
export interface McpRequest {
  readonly headers: Record<string, string>;
  readonly body: string;
}

const BOTH = 'application/json, text/event-stream';

/** tools/call echo as a 2026-07-28 client sends it (no session, no initialize). */
export function modernEcho(id: number): McpRequest {
  return modernCall(id, 'echo', {}, {});
}

/** The tool that asks once before it echoes (Pier's bench server with BENCH_INPUT_REQUIRED=1). */
export const ASKING_TOOL = 'confirm_echo';

/** Round one of the input-required exchange: the call, from a client that declares elicitation. */
export function askingCall(id: number): McpRequest {
  return modernCall(id, ASKING_TOOL, { elicitation: {} }, {});
}

/** Round two: the same call with the user's answer to the question `key` and the server's state. */
export function askingRetry(id: number, key: string, requestState: string): McpRequest {
  return modernCall(
    id,
    ASKING_TOOL,
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

function modernCall(
  id: number,
  name: string,
  clientCapabilities: Record<string, unknown>,
  extra: Record<string, unknown>,
): McpRequest {
  return {
    headers: {
      'content-type': 'application/json',
      accept: BOTH,
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      method: 'tools/call',
      params: {
        name,
        arguments: { text: ECHO_TEXT },
        ...extra,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
          'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
          'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
        },
      },
      jsonrpc: '2.0',
      id,
    }),
  };
}

/** tools/call echo as a 2025-11-25 client sends it: in a session when `sessionId` is given. */
export function legacyEcho(id: number, sessionId?: string): McpRequest {
  return {
    headers: {
      'content-type': 'application/json',
      accept: BOTH,
      'mcp-protocol-version': LEGACY_VERSION,
      ...(sessionId !== undefined && { 'mcp-session-id': sessionId }),
    },
    body: JSON.stringify({
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: ECHO_TEXT } },
      jsonrpc: '2.0',
      id,
    }),
  };
}

/**
 * The echo request of `era` (round one of `input-required`); `canned` sends the legacy shape, which the
 * ceiling does not read.
 */
export function echoRequest(era: Era, id: number, sessionId?: string): McpRequest {
  if (era === 'input-required') return askingCall(id);
  return era === 'modern' ? modernEcho(id) : legacyEcho(id, sessionId);
}

/**
 * Opens a 2025-era session the way the SDK clients do: `initialize`, then `notifications/initialized`
 * with the session id the server minted. Resolves with that id.
 */
export async function openSession(endpoint: string): Promise<string> {
  const init = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: BOTH },
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
  const initialized = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: BOTH,
      'mcp-protocol-version': LEGACY_VERSION,
      'mcp-session-id': sessionId,
    },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  if (initialized.status !== 202 && initialized.status !== 200) {
    throw new Error(`notifications/initialized: HTTP ${initialized.status}`);
  }
  return sessionId;
}

/** The JSON-RPC message of a response body, whether it came as JSON or as one SSE `data:` line. */
export function parseRpc(contentType: string | null, text: string): unknown {
  if (contentType?.startsWith('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .find((line) => line.startsWith('{'));
    if (data === undefined) throw new Error(`no JSON-RPC message in the SSE body: ${text.slice(0, 200)}`);
    return JSON.parse(data);
  }
  return JSON.parse(text);
}

/** The text of the first content item of a tools/call result, or undefined. */
export function echoedText(message: unknown): string | undefined {
  const result = (message as { result?: { content?: { type?: string; text?: string }[] } }).result;
  const first = result?.content?.[0];
  return first?.type === 'text' ? first.text : undefined;
}
