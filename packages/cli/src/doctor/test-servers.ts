// Test helper (excluded from the build): an MCP endpoint behind OAuth that is correct except for the one
// flaw it is told to have, with its own authorization server metadata, on 127.0.0.1.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Flaw =
  | 'none'
  | 'no-prm'
  | 'prm-other-resource'
  | 'no-s256'
  | 'no-registration'
  | 'cors-refuses'
  | 'challenge-without-metadata'
  | 'only-2025';

export interface FakeServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Without a token the endpoint challenges; the doctor (without --login) never gets past discovery. */
export async function startFake(flaw: Flaw): Promise<FakeServer> {
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const resource = `${origin}/mcp`;
  const prmUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
  const cors = (res: ServerResponse, req: IncomingMessage) => {
    const allowed = flaw === 'cors-refuses' ? 'https://app.example' : req.headers.origin;
    if (allowed !== undefined) res.setHeader('access-control-allow-origin', allowed);
    res.setHeader('access-control-expose-headers', 'Mcp-Session-Id, WWW-Authenticate');
  };
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (path === '/mcp' && req.method === 'OPTIONS') {
      cors(res, req);
      res.setHeader('access-control-allow-methods', 'GET, POST, DELETE');
      res.setHeader(
        'access-control-allow-headers',
        'authorization, content-type, mcp-protocol-version, mcp-session-id, last-event-id',
      );
      res.writeHead(204).end();
      return;
    }
    if (path === '/mcp' && flaw === 'only-2025') return answer2025(req, res);
    if (path === '/mcp') {
      cors(res, req);
      for await (const _ of req) {
        // drain
      }
      const challenge =
        flaw === 'challenge-without-metadata'
          ? 'Bearer scope="notes:read"'
          : `Bearer resource_metadata="${prmUrl}", scope="notes:read"`;
      json(401, { error: 'invalid_token' }, { 'www-authenticate': challenge });
      return;
    }
    if (
      path === '/.well-known/oauth-protected-resource/mcp' ||
      path === '/.well-known/oauth-protected-resource'
    ) {
      if (flaw === 'no-prm') return json(404, { error: 'not found' });
      json(200, {
        resource: flaw === 'prm-other-resource' ? 'https://other.example/mcp' : resource,
        authorization_servers: [origin],
        scopes_supported: ['notes:read'],
        bearer_methods_supported: ['header'],
      });
      return;
    }
    if (path === '/.well-known/oauth-authorization-server') {
      json(200, {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        ...(flaw === 'no-registration' ? {} : { registration_endpoint: `${origin}/register` }),
        code_challenge_methods_supported: flaw === 'no-s256' ? ['plain'] : ['S256'],
        scopes_supported: ['notes:read'],
        response_types_supported: ['code'],
      });
      return;
    }
    json(404, { error: 'not found' });
  }
  return {
    url: resource,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A stateless 2025-only endpoint without auth: initialize and tools/list; anything else is -32601. */
async function answer2025(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body = '';
  for await (const chunk of req) body += chunk;
  const message = JSON.parse(body || '{}') as {
    id?: number | string;
    method?: string;
    params?: { protocolVersion?: string };
  };
  if (message.id === undefined) {
    res.writeHead(202).end();
    return;
  }
  const reply = (payload: object) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...payload }));
  };
  if (message.method === 'initialize') {
    return reply({
      result: {
        protocolVersion:
          message.params?.protocolVersion === '2026-07-28' ? '2025-11-25' : message.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'old', version: '1.0.0' },
      },
    });
  }
  if (message.method === 'tools/list') return reply({ result: { tools: [] } });
  reply({ error: { code: -32601, message: `Method not found: ${message.method}` } });
}
