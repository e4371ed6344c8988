// The v1 SDK (`@modelcontextprotocol/sdk`), sessionful with JSON responses: one McpServer and one
// StreamableHTTPServerTransport per session, as its README wires them (2025-era clients only).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { benchPort, cannedHealth, serveControl } from './common.js';

const transports = new Map<string, StreamableHTTPServerTransport>();

function newSession(): StreamableHTTPServerTransport {
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    enableJsonResponse: true,
    onsessioninitialized: (id) => void transports.set(id, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) transports.delete(transport.sessionId);
  };
  const server = new McpServer({ name: 'bench-sdk-v1', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its text', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  void server.connect(transport);
  return transport;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const server = createServer(async (req, res) => {
  if (cannedHealth(req, res)) return;
  if (req.url !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  try {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const id = req.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? transports.get(id) : undefined;
    if (existing) return await existing.handleRequest(req, res, body);
    if (id === undefined && isInitializeRequest(body))
      return await newSession().handleRequest(req, res, body);
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session' }, id: null }),
    );
  } catch {
    if (!res.headersSent) res.writeHead(400);
    res.end();
  }
});

serveControl(() => ({ sessions: transports.size }));
server.listen(benchPort(), '127.0.0.1');
