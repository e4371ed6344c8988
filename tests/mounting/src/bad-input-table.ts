// The one table of bad input that every way of serving Pier must answer alike: the node listener, the node
// handler in each framework, the fetch handler on Node, Bun, Deno and Workers. Each case is a request below
// the mount point; the listener's answer (status, JSON body, `Allow`) is the reference.

/** The body limit the table's servers are given (`maxBodyBytes`). */
export const BAD_INPUT_LIMIT = 64 * 1024;

export interface BadInputCase {
  readonly name: string;
  /** Below the mount point: `/mcp`, `/health`. */
  readonly path: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly chunked?: boolean;
  /** Only with `sessions: true` (not on Workers). */
  readonly sessions?: true;
  /** The status expected everywhere (the listener's, checked against it too). */
  readonly status: number;
}

const LEGACY = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'table', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const legacyCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: 'hi' } },
});

export const BAD_INPUT_CASES: readonly BadInputCase[] = [
  {
    name: 'Host not allowed',
    path: '/mcp',
    method: 'POST',
    headers: { ...LEGACY, host: 'evil.example' },
    body: legacyCall,
    status: 403,
  },
  {
    name: 'Origin not allowed',
    path: '/mcp',
    method: 'POST',
    headers: { ...LEGACY, origin: 'https://evil.example' },
    body: legacyCall,
    status: 403,
  },
  {
    name: 'Host not allowed on a plugin route',
    path: '/health/ready',
    method: 'GET',
    headers: { host: 'evil.example:80' },
    status: 403,
  },
  {
    name: 'text/plain body',
    path: '/mcp',
    method: 'POST',
    headers: { ...LEGACY, 'content-type': 'text/plain' },
    body: legacyCall,
    status: 415,
  },
  {
    name: 'no content type',
    path: '/mcp',
    method: 'POST',
    headers: { accept: LEGACY.accept },
    body: legacyCall,
    status: 415,
  },
  { name: 'malformed JSON', path: '/mcp', method: 'POST', headers: LEGACY, body: '{"jsonrpc":', status: 400 },
  { name: 'empty body', path: '/mcp', method: 'POST', headers: LEGACY, body: '', status: 400 },
  {
    name: 'JSON that is not JSON-RPC',
    path: '/mcp',
    method: 'POST',
    headers: LEGACY,
    body: '{"hello":1}',
    status: 400,
  },
  {
    name: 'a JSON-RPC request whose id is an object',
    path: '/mcp',
    method: 'POST',
    headers: LEGACY,
    body: '{"jsonrpc":"2.0","id":{},"method":"tools/list"}',
    status: 400,
  },
  {
    name: '2025-era initialize that accepts only JSON',
    path: '/mcp',
    method: 'POST',
    headers: { ...LEGACY, accept: 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'table', version: '1' },
      },
    }),
    status: 406,
  },
  {
    name: 'unsupported MCP-Protocol-Version',
    path: '/mcp',
    method: 'POST',
    headers: { ...LEGACY, 'mcp-protocol-version': '1999-01-01' },
    body: legacyCall,
    status: 400,
  },
  {
    name: '2026-07-28 request whose Mcp-Method header disagrees with its body',
    path: '/mcp',
    method: 'POST',
    headers: { ...LEGACY, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' }, _meta: MODERN_META },
    }),
    status: 400,
  },
  {
    name: 'body over the limit, declared',
    path: '/mcp',
    method: 'POST',
    headers: LEGACY,
    body: 'x'.repeat(BAD_INPUT_LIMIT + 1),
    status: 413,
  },
  {
    name: 'body over the limit, chunked',
    path: '/mcp',
    method: 'POST',
    headers: LEGACY,
    body: 'x'.repeat(BAD_INPUT_LIMIT * 4),
    chunked: true,
    status: 413,
  },
  {
    name: 'wrong method on the endpoint',
    path: '/mcp',
    method: 'PUT',
    headers: LEGACY,
    body: legacyCall,
    status: 405,
  },
  {
    name: 'wrong method on a plugin route',
    path: '/health',
    method: 'POST',
    headers: LEGACY,
    body: '{}',
    status: 405,
  },
  {
    name: 'unknown session',
    path: '/mcp',
    method: 'POST',
    headers: { ...LEGACY, 'mcp-session-id': 'no-such-session' },
    body: legacyCall,
    sessions: true,
    status: 404,
  },
  {
    name: 'a 2025-era call without a session id',
    path: '/mcp',
    method: 'POST',
    headers: LEGACY,
    body: legacyCall,
    sessions: true,
    status: 400,
  },
  {
    name: 'GET stream without a session id',
    path: '/mcp',
    method: 'GET',
    headers: { accept: 'text/event-stream' },
    sessions: true,
    status: 400,
  },
];

/**
 * The listener's body as a mounted handler words it: a 404 or 405 names the path as the client sent it,
 * the mount's prefix included (`Not Found: /api/nope`).
 */
export function asSentUnder(body: unknown, prefix: string): unknown {
  const error = (body as { error?: { message?: unknown } }).error;
  if (prefix === '' || typeof error?.message !== 'string') return body;
  if (!/^(Not Found|Method Not Allowed):/.test(error.message)) return body;
  const at = error.message.lastIndexOf(' /') + 1;
  const message = `${error.message.slice(0, at)}${prefix}${error.message.slice(at)}`;
  return { ...(body as object), error: { ...error, message } };
}
