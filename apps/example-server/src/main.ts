#!/usr/bin/env node
// Entry point: read the configuration, open the notes, serve MCP over stdio or streamable HTTP.
import { setTimeout as delay } from 'node:timers/promises';
import { configReport } from '@pier/config';
import { redisTaskStore } from '@pier/redis';
import { httpTransport } from '@pier/transport-http';
import { dataDirOf, readConfig } from './config.js';
import { createNotesServer } from './notes-server.js';
import { NotesStore } from './notes-store.js';
import { FLUSH_TIMEOUT_MS, REDIS_READY_TIMEOUT_MS, SERVER_NAME, SHUTDOWN_TIMEOUT_MS } from './settings.js';
import { startOtlp, telemetryPlugin } from './telemetry.js';

// Problems (a missing API key…) are printed on stderr, with exit code 1, before anything else happens.
const config = readConfig();

let store: NotesStore;
try {
  store = await NotesStore.open(dataDirOf(config));
} catch (error) {
  fail(`cannot open the notes in ${dataDirOf(config)}: ${messageOf(error)}`);
}

// OTEL_EXPORTER_OTLP_ENDPOINT: the OpenTelemetry SDK is registered before the server is built.
const otlp = config.otlpEndpoint === undefined ? undefined : await startOtlp(config.otlpEndpoint);

// REDIS_URL: tasks (export_notes) live in Redis, so any replica answers tasks/get and tasks/cancel, and a
// cancel reaches the replica running the export. Unset: the embedded in-memory store (one process).
const tasks = config.redisUrl === undefined ? undefined : redisTaskStore({ url: config.redisUrl });
// Bounded: a Redis still down after this makes task calls fail clearly, not the server wait.
if (tasks !== undefined)
  await Promise.race([tasks.ready, delay(REDIS_READY_TIMEOUT_MS, undefined, { ref: false })]);

const server = createNotesServer(
  { config, store },
  // DEBUG=true wins over LOG_LEVEL.
  {
    logLevel: config.debug ? 'debug' : config.logLevel,
    closeHookTimeoutMs: FLUSH_TIMEOUT_MS,
    plugins: [telemetryPlugin(config)],
    ...(tasks !== undefined && { tasks: { store: tasks } }),
  },
);
// configReport masks every secret: this line never holds the raw API key or database URL.
server.logger.debug('configuration', { report: JSON.stringify(configReport(config)) });
// Core closes the server on SIGTERM (after the drain) or SIGINT, or when a stdio client ends stdin. The
// hook runs once the last request was answered and before the process exits, so every note a client
// was told about is on disk. A failed flush is logged and makes the exit code 1.
server.onClose(async () => {
  await store.flush();
  server.logger.info('notes flushed');
});
if (tasks !== undefined) server.onClose(() => tasks.close());
// Sends the spans and metrics still buffered.
if (otlp !== undefined) server.onClose(() => otlp.shutdown());

try {
  if (config.transport === 'stdio') {
    await server.listen({ transport: 'stdio' });
  } else {
    const { url } = await server.listen(
      httpTransport({
        host: config.host,
        port: config.port,
        sessions: config.sessions,
        drainDelayMs: config.drainDelayMs,
        shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS,
      }),
    );
    // Always printed (whatever LOG_LEVEL says): with --port 0 this is how a caller learns the port.
    process.stderr.write(`${SERVER_NAME} listening on ${url} (health: ${new URL('/health', url).href})\n`);
  }
} catch (error) {
  fail(`cannot start: ${messageOf(error)}`);
}

function fail(message: string): never {
  process.stderr.write(`${SERVER_NAME}: ${message}\n`);
  process.exit(1);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
