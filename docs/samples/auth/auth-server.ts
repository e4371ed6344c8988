// An OAuth 2.1 resource server: users log in at your authorization server; Pier checks their tokens.
import { createServer, defineServer, defineTool } from '@pier/core';
import { authPlugin, jwt } from '@pier/plugin-auth';
import { httpTransport } from '@pier/transport-http';

const auth = authPlugin({
  resource: 'https://notes.example.com/mcp', // the canonical URL of the MCP endpoint, as clients reach it
  authorizationServers: ['https://login.example.com/realms/notes'],
  verifier: jwt(), // RFC 9068 access tokens, keys found through the issuer's metadata
  scopesSupported: ['notes:read', 'notes:write'],
  implies: { 'notes:admin': ['notes:write', 'notes:read'] },
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
);
await server.listen(httpTransport({ host: '0.0.0.0', port: 3000, allowedHosts: ['notes.example.com'] }));
