// What a client meets, with fixed development tokens (staticTokens) instead of an authorization server.
import { createServer, defineServer, defineTool } from '@pier/core';
import { authPlugin, staticTokens } from '@pier/plugin-auth';
import { httpTransport } from '@pier/transport-http';

const auth = authPlugin({
  resource: 'https://notes.example.com/mcp',
  authorizationServers: ['https://login.example.com/realms/notes'],
  verifier: staticTokens([{ token: 'reader-token-0123456789', clientId: 'reader', scopes: ['notes:read'] }]),
  scopesSupported: ['notes:read', 'notes:write'],
});
const server = createServer(
  defineServer({
    name: 'notes',
    version: '1.0.0',
    plugins: [auth],
    tools: [
      defineTool({
        name: 'list_notes',
        scopes: ['notes:read'],
        handler: (_args, ctx) => `hello ${ctx.auth?.clientId}`,
      }),
      defineTool({ name: 'add_note', scopes: ['notes:write'], handler: () => 'added' }),
    ],
  }),
  { logLevel: 'warn', handleSignals: false },
);
const { url } = await server.listen(httpTransport({ port: 0 }));

const call = async (tool: string, token?: string) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool, arguments: {} },
    }),
  });
  console.log(
    `${tool} ${token === undefined ? 'without a token' : 'with a notes:read token'}: ${response.status}`,
  );
  const challenge = response.headers.get('www-authenticate');
  if (challenge) console.log(`  WWW-Authenticate: ${challenge}`);
  if (response.ok)
    console.log(`  ${JSON.stringify(((await response.json()) as { result: unknown }).result)}`);
};

await call('list_notes');
await call('list_notes', 'reader-token-0123456789');
await call('add_note', 'reader-token-0123456789');
const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url));
console.log(await metadata.json());
await server.close();
