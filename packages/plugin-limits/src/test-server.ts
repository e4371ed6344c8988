// Test helpers (excluded from the build): a small notes server with limits over real HTTP, and the official
// SDK clients (v2 in both eras, v1) and raw requests to call it.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CreateServerOptions,
  createServer,
  defineServer,
  defineTool,
  type PierPlugin,
  type PierServer,
} from '@pier/core';
import { httpTransport } from '@pier/transport-http';

/** How many times each tool's handler ran. */
export const runs: Record<string, number> = {};
/** Counts a run of `name` and answers `text`. */
const ran = (name: string, text: string): string => {
  runs[name] = (runs[name] ?? 0) + 1;
  return text;
};

/** Resolves every `slow` call waiting. */
let openGate: () => void = () => {};
let gate = new Promise<void>((resolve) => {
  openGate = resolve;
});
export function releaseSlowCalls(): void {
  openGate();
  gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });
}

export const tools = [
  defineTool({
    name: 'add_note',
    annotations: { readOnlyHint: false },
    handler: () => ran('add_note', 'added'),
  }),
  defineTool({ name: 'echo', annotations: { readOnlyHint: true }, handler: () => ran('echo', 'echo') }),
  defineTool({
    name: 'export',
    annotations: { readOnlyHint: false },
    handler: () => ran('export', 'exported'),
  }),
  defineTool({
    name: 'slow',
    handler: async () => {
      ran('slow', '');
      await gate;
      return 'slow done';
    },
  }),
];

/**
 * Accepts `Authorization: Bearer <name>` as the principal `<name>` of the OAuth client `<name>`, and
 * `Bearer <user>@<client>` as the principal `<user>` of the client `<client>`; anonymous without one.
 */
export const bearerAuth: PierPlugin = {
  name: 'test-auth',
  setup: (ctx) =>
    ctx.setAuthenticator({
      authenticate(request) {
        const header = request.header('authorization');
        if (header === undefined) return { authInfo: { token: '', clientId: '', scopes: [] } };
        const token = header.replace(/^Bearer /, '');
        const [user = token, client = user] = token.split('@');
        return { authInfo: { token, clientId: client, scopes: [], extra: { user } } };
      },
      principalOf: (info) => String(info.extra?.user ?? info.clientId),
    }),
};

const servers: PierServer[] = [];
const clients: { close(): Promise<unknown> }[] = [];

/** A notes server with `plugins`, on a free loopback port; its MCP URL. */
export async function serve(
  plugins: readonly PierPlugin[],
  options: { sessions?: boolean } & CreateServerOptions = {},
): Promise<string> {
  const { sessions = false, ...rest } = options;
  const server = createServer(defineServer({ name: 'notes', version: '1.0.0', tools }), {
    handleSignals: false,
    logStream: { write: () => true },
    ...rest,
    plugins,
  });
  servers.push(server);
  const { url } = await server.listen(httpTransport({ port: 0, sessions }));
  return url;
}

export async function closeAll(): Promise<void> {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(servers.splice(0).map((server) => server.close()));
  for (const key of Object.keys(runs)) delete runs[key];
}

/** The clients a test runs a scenario with. */
export type ClientKind = 'v2-modern' | 'v2-legacy' | 'v1';

/** What a test needs of any client: call a tool, list the tools. */
export interface AnyClient {
  callTool(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  listTools(): Promise<unknown>;
}

export interface CallResult {
  readonly isError?: boolean;
  readonly content?: readonly { readonly type: string; readonly text?: string }[];
  readonly _meta?: Readonly<Record<string, unknown>>;
}

export async function connect(url: string, kind: ClientKind): Promise<AnyClient> {
  if (kind === 'v1') {
    const client = new V1Client({ name: 'limits-v1', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(url)));
    clients.push(client);
    return {
      callTool: (name, args = {}) => client.callTool({ name, arguments: args }) as Promise<CallResult>,
      listTools: () => client.listTools(),
    };
  }
  const client =
    kind === 'v2-modern'
      ? new Client({ name: 'limits-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
      : new Client({ name: 'limits-v2', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return {
    callTool: (name, args = {}) => client.callTool({ name, arguments: args }) as Promise<CallResult>,
    listTools: () => client.listTools(),
  };
}

let nextId = 1;

/** A raw answer: its status, headers and JSON body. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

/** One raw 2026-07-28 request (the `_meta` envelope and its headers). */
export function modern(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return post(
    url,
    {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof params.name === 'string' && { 'mcp-name': params.name }),
      ...headers,
    },
    { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta } },
  );
}

/** One raw 2025-era request without a session. */
export function legacy(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<RawAnswer> {
  return post(
    url,
    { 'mcp-protocol-version': '2025-11-25' },
    { jsonrpc: '2.0', id: nextId++, method, params },
  );
}

async function post(url: string, headers: Record<string, string>, message: unknown): Promise<RawAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    signal: AbortSignal.timeout(10_000),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(message),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** The text of a tool result. */
export function textOf(result: CallResult | Record<string, unknown> | undefined): string {
  const content = (result as CallResult | undefined)?.content ?? [];
  return content.map((block) => block.text ?? '').join('');
}
