// src/main.ts: read the settings, create the server, serve MCP over stdio. Logs go to stderr; stdout
// carries nothing but protocol messages.
import { loadConfig, z } from '@pier/config';
import { createServer } from '@pier/core';
import { AppServer } from './server.js';

const config = loadConfig({
  apiKey: {
    schema: z.string().min(1),
    env: 'API_KEY',
    secret: true,
    description: 'Key for the upstream API (a secret: never printed)',
  },
});

const server = createServer(AppServer, { apiKey: config.apiKey });
await server.listen();
