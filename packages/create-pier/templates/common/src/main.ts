// Entry point: read the settings, create the server, serve MCP. Logs go to stderr; stdout carries
// nothing but protocol messages.
// #if config
import { readConfig } from './config.js';
// #else
import { parseArgs } from 'node:util';
// #endif
// #if app
import { start } from './app.js';
// #else
import { createServer } from '@pier/core';
// #if health
import { healthPlugin } from '@pier/plugin-health';
// #endif
// #if decorators
import { AppServer } from './server.js';
// #else
import { appServer } from './server.js';
// #endif
// #endif

// #if config
const config = readConfig();
// #else
// `--api-key` (or the API_KEY variable); add what your server needs.
const { values } = parseArgs({
  options: {
    'api-key': { type: 'string' },
// #if both
    transport: { type: 'string', default: 'stdio' },
// #endif
// #if http
    port: { type: 'string', default: '3000' },
// #endif
  },
});
const apiKey = values['api-key'] ?? process.env.API_KEY;
if (apiKey === undefined || apiKey === '') {
  process.stderr.write('__NAME__: an API key is required: --api-key <key> or API_KEY\n');
  process.exit(1);
}
const config = {
  apiKey,
// #if both
  transport: values.transport,
// #endif
// #if http
  port: Number(values.port),
// #endif
};
// #endif

// #if app
const { url } = await start({ apiKey: config.apiKey }, { port: config.port });
process.stderr.write(`__NAME__: MCP on ${url}/mcp\n`);
// #else
// #if health
// Readiness and liveness for a load balancer or Kubernetes: add a check per dependency.
const health = healthPlugin({
  checks: [{ name: 'self', critical: true, check: async () => ({ status: 'healthy' }) }],
});
// #endif
// #if decorators
// #if health
const server = createServer(AppServer, { apiKey: config.apiKey }, { plugins: [health] });
// #else
const server = createServer(AppServer, { apiKey: config.apiKey });
// #endif
// #else
// #if health
const server = createServer(appServer({ apiKey: config.apiKey }), { plugins: [health] });
// #else
const server = createServer(appServer({ apiKey: config.apiKey }));
// #endif
// #endif

// #if both
if (config.transport === 'streamable-http') {
  await server.listen({ transport: 'streamable-http', port: config.port });
} else {
  await server.listen();
}
// #endif
// #if !both
// #if http
await server.listen({ transport: 'streamable-http', port: config.port });
// #else
await server.listen();
// #endif
// #endif
// #endif
