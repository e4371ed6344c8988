// The app's life as a process: configuration errors, secrets in its output, stdout under stdio,
// and notes that outlive a restart.
import { maskSecret } from '@pier/config';
import { afterEach, describe, expect, it } from 'vitest';
import { MISSING_API_KEY_HINT } from '../config.js';
import { cleanUp, spawnApp, startHttpApp, TEST_API_KEY, tempDir, waitFor } from './test-app.js';
import { closeClients, connectHttp, structured, textOf } from './test-clients.js';

const TEST_TIMEOUT_MS = 30_000;

afterEach(async () => {
  await closeClients();
  await cleanUp();
});

describe('a missing API key', () => {
  it.each([
    { label: 'no API_KEY at all (stdio, as a client would start it)', args: [], env: {} },
    {
      label: 'an empty API_KEY',
      args: ['--transport', 'streamable-http', '--port', '0'],
      env: { API_KEY: '' },
    },
  ])(
    '$label: explains on stderr how to set it, prints nothing on stdout, exits with 1',
    async ({ args, env }) => {
      const app = spawnApp([...args, '--data-dir', await tempDir()], env);
      expect(await app.exited).toEqual({ code: 1, signal: null });
      expect(app.stdout()).toBe('');
      const lines = app.stderr().split('\n');
      expect(lines[0]).toBe('apiKey (API_KEY or --api-key): required');
      expect(app.stderr()).toContain(MISSING_API_KEY_HINT);
      expect(app.stderr()).toContain('"env": { "API_KEY": "<your key>" }');
    },
    TEST_TIMEOUT_MS,
  );
});

describe('secrets', () => {
  it(
    'show_config reports the key masked and the database URL as present, and neither appears raw anywhere',
    async () => {
      const apiKey = 'canary-api-key-5f0c2b7e9d';
      const databaseUrl = 'postgres://notes:canary-db-password-41c9@db.internal/notes';
      const app = await startHttpApp({
        // --debug logs the whole configuration at startup: it must come out masked too.
        args: ['--debug'],
        env: { API_KEY: apiKey, DATABASE_URL: databaseUrl },
      });
      const { client } = await connectHttp('v2 auto', app.url);
      const result = await client.callTool({ name: 'show_config', arguments: {} });
      const report = structured<{ config: Record<string, Record<string, unknown>> }>(result);

      expect(report.config.apiKey).toEqual({
        value: maskSecret(apiKey),
        present: true,
        secret: true,
        source: 'API_KEY',
      });
      expect(report.config.databaseUrl).toMatchObject({
        present: true,
        secret: true,
        source: 'DATABASE_URL',
      });
      expect(report.config.port).toMatchObject({ value: 0, source: '--port' });
      const everything = `${JSON.stringify(result)}\n${app.stderr()}\n${app.stdout()}`;
      expect(app.stderr()).toContain('configuration report=');
      for (const secret of [apiKey, databaseUrl, 'canary-db-password-41c9']) {
        expect(everything).not.toContain(secret);
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe('stdio', () => {
  it(
    'keeps stdout for protocol messages only, even at debug level, and exits with 0 when stdin ends',
    async () => {
      const app = spawnApp(['--data-dir', await tempDir(), '--debug'], { API_KEY: TEST_API_KEY });
      const send = (message: object) => app.child.stdin?.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1.0.0' },
        },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'add_note', arguments: { title: 't', body: 'b' } },
      });
      await waitFor(app, () => (app.stdout().includes('"id":2') ? true : undefined));
      app.child.stdin?.end();
      expect(await app.exited).toEqual({ code: 0, signal: null });

      const lines = app.stdout().trimEnd().split('\n');
      // The two answers, and add_note telling the client the resource list changed (a new note in it).
      expect(lines).toHaveLength(3);
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
      expect(lines.map((line) => (JSON.parse(line) as { method?: string }).method).filter(Boolean)).toEqual([
        'notifications/resources/list_changed',
      ]);
      expect(app.stderr()).toContain('DEBUG');
      expect(app.stderr()).toContain('notes flushed');
    },
    TEST_TIMEOUT_MS,
  );
});

describe('persistence', () => {
  it(
    'notes survive a restart of the app',
    async () => {
      const dataDir = await tempDir();
      const first = await startHttpApp({ dataDir });
      const { client } = await connectHttp('v2 auto', first.url);
      const added = structured<{ note: { id: string } }>(
        await client.callTool({ name: 'add_note', arguments: { title: 'Keep me', body: 'across restarts' } }),
      );
      await closeClients();
      first.child.kill('SIGTERM');
      expect(await first.exited).toEqual({ code: 0, signal: null });

      const second = await startHttpApp({ dataDir });
      const { client: again } = await connectHttp('v1', second.url);
      const listed = structured<{ notes: { id: string; title: string }[] }>(
        await again.callTool({ name: 'list_notes', arguments: {} }),
      );
      expect(listed.notes).toEqual([expect.objectContaining({ id: added.note.id, title: 'Keep me' })]);
      const search = await again.callTool({ name: 'search_notes', arguments: { query: 'restarts' } });
      expect(textOf(search)).toContain(added.note.id);
    },
    TEST_TIMEOUT_MS,
  );
});
