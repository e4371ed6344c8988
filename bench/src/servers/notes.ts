// The example app (apps/example-server), wired as its own main.js wires it for streamable HTTP: its
// configuration read from the environment, its file store, `createNotesServer` (health checks, the notes
// skill, auth off as by default) and `telemetryPlugin` (`@pier/plugin-otel`, no OpenTelemetry SDK, as
// without OTEL_EXPORTER_OTLP_ENDPOINT). Loaded with `list_notes` (issue 31: the app's tools on the
// engine's fast path, next to echo). `BENCH_SESSIONS=1` turns its `SESSIONS` on.
// The store is seeded with three notes in a data directory of its own under the system's temporary
// directory, named after this process; a later start removes those of processes that are gone (the
// harness stops servers with SIGKILL, which runs no clean-up). The `upstream` health check is pointed at
// this server's own /health/live (no network here).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfig } from '@pier/example-server/dist/config.js';
import { createNotesServer } from '@pier/example-server/dist/notes-server.js';
import { FileNotesStore } from '@pier/example-server/dist/notes-store.js';
import { telemetryPlugin } from '@pier/example-server/dist/telemetry.js';
import { httpTransport } from '@pier/transport-http';
import { benchPort, serveControl } from './common.js';

const PREFIX = 'pier-bench-notes-';

/** Removes the data directories of notes servers whose process is gone. */
function removeStale(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split('-')[0]);
    try {
      process.kill(pid, 0);
    } catch {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  }
}

removeStale();
const port = benchPort();
const dataDir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
const sessions = process.env.BENCH_SESSIONS === '1';
const config = readConfig({
  argv: [],
  env: {
    API_KEY: 'bench-only-key',
    DATA_DIR: dataDir,
    TRANSPORT: 'streamable-http',
    HOST: '127.0.0.1',
    PORT: String(port),
    SESSIONS: String(sessions),
    BASE_URL: `http://127.0.0.1:${port}/health/live`,
  },
});
const store = await FileNotesStore.open(dataDir);
for (const [title, tags] of [
  ['Groceries', ['home']],
  ['Release checklist', ['work', 'release']],
  ['Reading list', ['home', 'books']],
] as const) {
  await store.add({
    title,
    body: `${title}: a note of the bench's seed, a line or two long.`,
    tags: [...tags],
  });
}
const server = createNotesServer(
  { config, store, dataDir },
  { logLevel: config.logLevel, handleSignals: false, plugins: [telemetryPlugin(config)] },
);
serveControl();
await server.listen(httpTransport({ host: config.host, port: config.port, sessions: config.sessions }));
