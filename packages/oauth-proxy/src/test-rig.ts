// Test helper (excluded from the build): a Pier notes server with the OAuth proxy on a fixed loopback port,
// logs captured, and the tools the tests call (whoami, the scoped notes tools, and one that calls the
// provider's user API with the upstream token, as a real tool would).
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { createServer, defineServer, defineTool, type PierServer } from '@pier/core';
import { authDetails } from '@pier/plugin-auth';
import { httpTransport } from '@pier/transport-http';
import { type OAuthProxy, type OAuthProxyOptions, oauthProxy } from './index.js';
import { upstreamToken } from './upstream-token.js';

/** A free loopback port: the proxy's callback URL is registered at the provider before the server listens. */
export async function freePort(): Promise<number> {
  const probe = createHttpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export const callbackUrlOf = (port: number) => `http://127.0.0.1:${port}/oauth/callback`;

export interface NotesRig {
  readonly url: string;
  readonly resource: string;
  readonly issuer: string;
  readonly proxy: OAuthProxy;
  readonly server: PierServer;
  /** Every stderr line of the server (logger at debug). */
  readonly logs: string[];
  /** Handler calls by tool name: what refusal tests assert never happened. */
  readonly calls: string[];
  /** How many times the proxy issued tokens (its `tokens issued` log line). */
  issued(): number;
  close(): Promise<void>;
}

/** Starts the notes server on `port` with `oauthProxy({ resource, ...options })`. */
export async function startNotes(
  port: number,
  options: Omit<OAuthProxyOptions, 'resource'> & { readonly resource?: string },
  rig: { readonly sessions?: boolean; readonly userApi?: string } = {},
): Promise<NotesRig> {
  const resource = options.resource ?? `http://127.0.0.1:${port}/mcp`;
  const logs: string[] = [];
  const calls: string[] = [];
  const proxy = oauthProxy({
    scopes: ['notes:read', 'notes:write'],
    scopeDescriptions: { 'notes:read': 'read your notes', 'notes:write': 'add and change your notes' },
    ...options,
    resource,
  });
  const server = createServer(
    defineServer({
      name: 'notes',
      version: '1.0.0',
      plugins: [proxy],
      tools: [
        defineTool({
          name: 'whoami',
          handler: (_args, ctx) => {
            calls.push('whoami');
            const details = authDetails(ctx.auth);
            return {
              subject: details?.subject ?? null,
              clientId: ctx.auth?.clientId ?? null,
              issuer: details?.issuer ?? null,
              scopes: ctx.auth?.scopes ?? [],
              // What a careless tool might print: the whole ctx.auth.
              printed: `${inspect(ctx.auth, { depth: 5 })} ${JSON.stringify(ctx.auth)} ${String(ctx.auth?.extra)}`,
            };
          },
        }),
        defineTool({
          name: 'list_notes',
          scopes: ['notes:read'],
          handler: () => {
            calls.push('list_notes');
            return 'no notes yet';
          },
        }),
        defineTool({
          name: 'add_note',
          scopes: ['notes:write'],
          handler: () => {
            calls.push('add_note');
            return 'added';
          },
        }),
        defineTool({
          name: 'provider_user',
          description: "Calls the provider's user API as the user, with the upstream token",
          handler: async (_args, ctx) => {
            calls.push('provider_user');
            const token = await upstreamToken(ctx.auth);
            // A careless tool: it logs the token object. It must print redacted.
            ctx.logger.info('calling the provider', { token, printed: `${token}` });
            const res = await fetch(rig.userApi ?? 'http://127.0.0.1:9/user', {
              headers: { authorization: `Bearer ${token.reveal()}` },
            });
            const body = (await res.json()) as { login?: string; message?: string };
            if (!res.ok) throw new Error(`the provider answered ${res.status}`);
            return {
              login: body.login ?? null,
              provider: token.provider,
              printed: [String(token), JSON.stringify(token), inspect(token), `${token}`].join(' | '),
            };
          },
        }),
      ],
    }),
    {
      handleSignals: false,
      logLevel: 'debug',
      logStream: {
        write: (line: string) => {
          logs.push(line);
          return true;
        },
      },
    },
  );
  const { url } = await server.listen(
    httpTransport({ port, path: '/mcp', ...(rig.sessions !== undefined && { sessions: rig.sessions }) }),
  );
  return {
    url,
    resource,
    issuer: proxy.issuer,
    proxy,
    server,
    logs,
    calls,
    issued: () => logs.filter((line) => line.includes('tokens issued')).length,
    close: () => server.close(),
  };
}

/** A 2026-07-28 `tools/call` of `tool` at `url` with `token`, over plain fetch (what the SDK sends). */
export function callTool(url: string, tool: string, token: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

/** A public client's refresh request at the proxy's token endpoint. */
export function refreshAt(issuer: string, refreshToken: string, clientId: string): Promise<Response> {
  return fetch(`${issuer}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
    }),
  });
}
