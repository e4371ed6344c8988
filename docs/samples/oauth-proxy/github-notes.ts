// A notes server whose users sign in with GitHub through the OAuth proxy. Register one OAuth App at
// GitHub whose callback URL is the proxy's `callbackUrl`, then give its id and secret in the environment.
import { createServer, defineServer, defineTool } from '@pier/core';
import { github, oauthProxy, upstreamToken } from '@pier/oauth-proxy';
import { httpTransport } from '@pier/transport-http';

const proxy = oauthProxy({
  resource: 'https://notes.example.com/mcp', // the public URL of the MCP endpoint
  upstream: github({
    clientId: process.env.GITHUB_CLIENT_ID ?? '',
    clientSecret: process.env.GITHUB_CLIENT_SECRET ?? '',
  }),
  scopes: ['notes:read', 'notes:write'],
  scopeDescriptions: { 'notes:read': 'read your notes', 'notes:write': 'add and change your notes' },
});
console.error(`register this callback URL at GitHub: ${proxy.callbackUrl}`);
// → register this callback URL at GitHub: https://notes.example.com/oauth/callback

const server = createServer(
  defineServer({
    name: 'notes',
    version: '1.0.0',
    plugins: [proxy],
    tools: [
      defineTool({ name: 'list_notes', scopes: ['notes:read'], handler: () => 'no notes yet' }),
      defineTool({
        name: 'my_repositories',
        description: 'Your GitHub repositories',
        handler: async (_args, ctx) => {
          const token = await upstreamToken(ctx.auth); // GitHub's token for this user, never sent to the client
          const res = await fetch('https://api.github.com/user/repos', {
            headers: { authorization: `Bearer ${token.reveal()}`, 'user-agent': 'notes' },
          });
          const repos = (await res.json()) as { full_name: string }[];
          return { repositories: repos.map((repo) => repo.full_name) };
        },
      }),
    ],
  }),
);
await server.listen(httpTransport({ host: '0.0.0.0', port: 3000 }));
