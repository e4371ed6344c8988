// Several replicas of one server behind the proxy: every replica gets the same store (and the same
// provider client, or the same `secret`), so any replica serves any step of a login.
import { createServer, defineServer } from '@pier/core';
import { github, oauthProxy } from '@pier/oauth-proxy';
import { redisKeyValueStore } from '@pier/redis';
import { httpTransport } from '@pier/transport-http';

const store = redisKeyValueStore({
  url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  prefix: 'notes:oauth:',
});
const proxy = oauthProxy({
  resource: 'https://notes.example.com/mcp',
  upstream: github({
    clientId: process.env.GITHUB_CLIENT_ID ?? '',
    clientSecret: process.env.GITHUB_CLIENT_SECRET ?? '',
  }),
  scopes: ['notes:read', 'notes:write'],
  store,
});

const server = createServer(defineServer({ name: 'notes', version: '1.0.0', plugins: [proxy] }));
server.onClose(() => store.close());
await server.listen(httpTransport({ host: '0.0.0.0', port: 3000 }));
