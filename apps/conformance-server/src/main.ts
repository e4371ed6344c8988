// Serves EverythingServer over streamable HTTP, stateless (the default) or with sessions, for the MCP
// conformance suite: `node dist/main.js --port 0 [--sessions]`. The URL goes to stderr.
import { fileURLToPath } from 'node:url';
import { loadConfig, z } from '@pier/config';
import { createServer } from '@pier/core';
import { EverythingServer } from './everything-server.js';

const config = loadConfig(
  {
    host: { schema: z.string().min(1).default('127.0.0.1'), env: 'HOST', description: 'Address to bind' },
    port: {
      schema: z.number().int().min(0).max(65535).default(3000),
      env: 'PORT',
      description: 'Port; 0 picks a free one',
    },
    sessions: {
      schema: z.boolean().default(false),
      env: 'SESSIONS',
      description:
        'Give 2025-era clients sessions (GET stream, server-to-client requests, resumable streams)',
    },
    retryMs: {
      schema: z.number().int().min(0).default(1000),
      env: 'RETRY_MS',
      description: 'With sessions: the SSE retry delay suggested to clients that lost a stream',
    },
  },
  {
    name: 'pier-conformance-server',
    version: '1.0.0',
    description: 'A Pier server with everything the MCP conformance suite checks.',
  },
);

// The skills extension's fixture: one skill with a subdirectory (skills/, beside dist/).
const server = createServer(EverythingServer, undefined, {
  skills: fileURLToPath(new URL('../skills', import.meta.url)),
});
const { url } = await server.listen({
  transport: 'streamable-http',
  host: config.host,
  port: config.port,
  ...(config.sessions && {
    sessions: true,
    // Resumable streams: every SSE event is kept (per session, bounded) for Last-Event-ID replay,
    // which SSE polling (SEP-1699, the test_reconnection tool) relies on.
    resumability: { retryMs: config.retryMs },
  }),
});
process.stderr.write(`conformance server on ${url} (${config.sessions ? 'sessions' : 'stateless'})\n`);
