// The practical ceiling (issue 22): the MCP server a team would write by hand if it gave up on
// frameworks. node:http, no SDK: it reads and parses the request, checks what the protocol asks a
// server to check (JSON-RPC shape, protocol version, the 2026-07-28 envelope and routing headers,
// `Accept` for 2025-era requests), validates the arguments with the zod schema Pier's bench server
// declares, calls the same echo function and serialises a correct MCP result — the 2026-07-28 shape
// (`resultType`, `serverInfo` in `_meta`) or the 2025-era one. Stateless: 2025-era requests are answered
// without an `initialize` first, as the stateless SDK and Pier do. Everything that does not change per
// request (the schema, the tool list, the headers) is built once.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { benchPort, cannedHealth, serveControl } from './common.js';
import { ECHO_DESCRIPTION, ECHO_INPUT, echo } from './echo-tool.js';

const MODERN = '2026-07-28';
const LEGACY = new Set(['2025-11-25', '2025-06-18', '2025-03-26']);
/** What a 2025-era request without `MCP-Protocol-Version` is taken to speak (the spec's fallback). */
const DEFAULT_LEGACY = '2025-03-26';
const MAX_BODY = 4 * 1024 * 1024;
const SERVER_INFO = { name: 'bench-hand', version: '1.0.0' };
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';

const echoArgs = z.object(ECHO_INPUT);
const TOOLS = [{ name: 'echo', description: ECHO_DESCRIPTION, inputSchema: z.toJSONSchema(echoArgs) }];
// `HAND_RATELIMIT_FIELDS=on` (server `hand-ratelimit-fields`): two more fields on every answer, as a limiter
// sends them — what node:http alone spends writing them.
const JSON_HEADERS: Readonly<Record<string, string>> =
  process.env.HAND_RATELIMIT_FIELDS === 'on'
    ? {
        'content-type': 'application/json',
        'ratelimit-policy': '"echo";q=1000000000;w=1',
        ratelimit: '"echo";r=999999999;t=1',
      }
    : { 'content-type': 'application/json' };

type Id = string | number;
interface Rpc {
  readonly jsonrpc?: unknown;
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: { readonly name?: unknown; readonly arguments?: unknown; readonly _meta?: unknown };
}
/** A JSON-RPC error answer: the HTTP status it goes with, its code and message. */
class RpcError {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly message: string,
  ) {}
}

const server = createServer((req, res) => {
  if (cannedHealth(req, res)) return;
  if (req.url !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  if (!req.headers['content-type']?.startsWith('application/json')) {
    res.writeHead(415).end();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > MAX_BODY) return reply(res, 413, error(null, -32600, 'Request body too large'));
    let message: Rpc;
    try {
      message = JSON.parse(chunks.length === 1 ? chunks[0]!.toString() : Buffer.concat(chunks).toString());
    } catch {
      return reply(res, 400, error(null, -32700, 'Parse error'));
    }
    const id = idOf(message);
    try {
      const result = answer(req, message);
      if (id === undefined) res.writeHead(202).end();
      else reply(res, 200, JSON.stringify({ result, jsonrpc: '2.0', id }));
    } catch (thrown) {
      if (!(thrown instanceof RpcError)) throw thrown;
      reply(res, thrown.status, error(id ?? null, thrown.code, thrown.message));
    }
  });
});

serveControl();
server.listen(benchPort(), '127.0.0.1');

/** The result of one request, or an RpcError. */
function answer(req: IncomingMessage, message: Rpc): unknown {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new RpcError(400, -32600, 'Invalid Request: one JSON-RPC message per POST');
  }
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string') {
    throw new RpcError(400, -32600, 'Invalid Request');
  }
  const header = req.headers['mcp-protocol-version'];
  const version = typeof header === 'string' ? header : DEFAULT_LEGACY;
  const modern = version === MODERN;
  if (modern) checkEnvelope(req, message);
  else if (!LEGACY.has(version)) throw new RpcError(400, -32600, `Unsupported protocol version ${version}`);
  else if (!acceptsBoth(req.headers.accept)) {
    throw new RpcError(406, -32600, 'Not Acceptable: accept both application/json and text/event-stream');
  }
  // A notification (no id) needs no answer but a 202: nothing this server does depends on one.
  if (!('id' in message)) return undefined;
  const result = dispatch(message.method, message.params, modern);
  return modern
    ? { ...result, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } }
    : result;
}

function dispatch(method: string, params: Rpc['params'], modern: boolean): Record<string, unknown> {
  switch (method) {
    case 'tools/call': {
      if (params?.name !== 'echo') throw new RpcError(200, -32602, `Unknown tool: ${String(params?.name)}`);
      const args = echoArgs.safeParse(params.arguments ?? {});
      if (!args.success) {
        // Bad arguments are the tool's error, reported in the result (as the SDK does).
        const text = `Input validation error: ${z.prettifyError(args.error)}`;
        return { content: [{ type: 'text', text }], isError: true };
      }
      return { content: [{ type: 'text', text: echo(args.data) }] };
    }
    case 'tools/list':
      return { tools: TOOLS };
    case 'ping':
      return {};
  }
  if (method === 'initialize' && !modern) {
    return { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: SERVER_INFO };
  }
  throw new RpcError(200, -32601, `Method not found: ${method}`);
}

/** 2026-07-28: the envelope in `_meta` names the revision, and the routing headers match the body. */
function checkEnvelope(req: IncomingMessage, message: Rpc): void {
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  if (meta?.[META_VERSION] !== MODERN) {
    throw new RpcError(400, -32600, 'Invalid Request: the _meta protocol version does not match the header');
  }
  if (req.headers['mcp-method'] !== message.method) {
    throw new RpcError(400, -32600, 'Invalid Request: Mcp-Method does not match the body');
  }
  const name = message.params?.name;
  if (typeof name === 'string' && req.headers['mcp-name'] !== name) {
    throw new RpcError(400, -32600, 'Invalid Request: Mcp-Name does not match the body');
  }
}

function acceptsBoth(accept: string | undefined): boolean {
  return accept?.includes('application/json') === true && accept.includes('text/event-stream');
}

function idOf(message: Rpc): Id | undefined {
  const id = message?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

function error(id: Id | null, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, JSON_HEADERS);
  res.end(body);
}
