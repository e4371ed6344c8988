#!/usr/bin/env node
// Entry point: read the configuration, open the notes, serve MCP over stdio or streamable HTTP.
import { configReport } from '@pier/config';
import { createLogger } from '@pier/core';
import { httpTransport } from '@pier/transport-http';
import { dataDirOf, readConfig } from './config.js';
import { notesLimits } from './limits.js';
import { createNotesServer } from './notes-server.js';
import { FileNotesStore, type NotesStore } from './notes-store.js';
import { oauthProxyParts } from './oauth-proxy.js';
import { type ScaleOutParts, scaleOutParts } from './scale-out.js';
import { FLUSH_TIMEOUT_MS, SERVER_NAME, SHUTDOWN_TIMEOUT_MS } from './settings.js';
import { startOtlp, telemetryPlugin } from './telemetry.js';

// Problems (a missing API key…) are printed on stderr, with exit code 1, before anything else happens.
const config = readConfig();

const logLevel = config.debug ? 'debug' : config.logLevel;
const dataDir = dataDirOf(config);

// REDIS_URL: scale-out mode, the notes, change events and input-required key shared through Redis.
// Without it, the embedded defaults: notes in <data dir>/notes.json, events and key in this process.
let shared: ScaleOutParts | undefined;
if (config.redisUrl !== undefined) {
  try {
    shared = await scaleOutParts({
      redisUrl: config.redisUrl,
      requestStateKey: config.requestStateKey,
      sessions: config.transport !== 'stdio' && config.sessions,
      advertiseUrl: config.advertiseUrl,
      logger: createLogger({ scope: SERVER_NAME, level: logLevel }),
    });
  } catch (error) {
    // The message never holds the URL (scaleOutParts cuts it out).
    fail(`cannot use Redis: ${messageOf(error)}`);
  }
}

let store: NotesStore;
try {
  // The data directory is used in both modes (exports, the data-dir check).
  const files = await FileNotesStore.open(dataDir);
  store = shared?.notesStore ?? files;
} catch (error) {
  fail(`cannot open the notes in ${dataDir}: ${messageOf(error)}`);
}

// OTEL_EXPORTER_OTLP_ENDPOINT: the OpenTelemetry SDK is registered before the server is built.
const otlp = config.otlpEndpoint === undefined ? undefined : await startOtlp(config.otlpEndpoint);

// ADD_NOTE_LIMIT: add_note calls per principal per minute, counted in Redis for the fleet with REDIS_URL.
const limits = notesLimits(config.addNoteLimit, shared?.limitStore);

// AUTH_UPSTREAM_*: proxy mode, MCP clients log in with GitHub, Google or an OpenID Connect provider.
let proxy: ReturnType<typeof oauthProxyParts>;
try {
  proxy = oauthProxyParts(config, createLogger({ scope: SERVER_NAME, level: logLevel }));
} catch (error) {
  // The proxy's messages name settings, never a secret's value.
  fail(`cannot set up the OAuth proxy: ${messageOf(error)}`);
}

const server = createNotesServer(
  {
    config,
    store,
    dataDir,
    checks: [...(shared?.healthChecks ?? []), ...(limits === undefined ? [] : [limits.healthCheck()])],
  },
  // DEBUG=true wins over LOG_LEVEL.
  {
    logLevel,
    closeHookTimeoutMs: FLUSH_TIMEOUT_MS,
    plugins: [
      telemetryPlugin(config, limits),
      ...(proxy === undefined ? [] : [proxy.plugin]),
      ...(limits === undefined ? [] : [limits]),
    ],
    ...(shared !== undefined && { eventBus: shared.eventBus, requestState: shared.requestState }),
    ...(shared?.tasks !== undefined && { tasks: shared.tasks }),
    ...(shared === undefined &&
      config.requestStateKey !== undefined && { requestState: { key: config.requestStateKey } }),
  },
);
// configReport masks every secret: this line never holds the raw API key or database URL.
server.logger.debug('configuration', { report: JSON.stringify(configReport(config)) });
// Hooks run last added first: Redis is closed after the notes are flushed.
if (shared !== undefined) server.onClose(() => (shared as ScaleOutParts).close());
if (proxy !== undefined) server.onClose(() => proxy?.close());
// Core closes the server on SIGTERM (after the drain) or SIGINT, or when a stdio client ends stdin. The
// hook runs once the last request was answered and before the process exits, so every note a client
// was told about is on disk. A failed flush is logged and makes the exit code 1.
server.onClose(async () => {
  await store.flush();
  server.logger.info('notes flushed');
});
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
        ...shared?.http,
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
