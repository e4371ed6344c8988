// Real clients written by others against the app as a child process: the SDK v2 client (negotiating,
// and pinned to the 2025 handshake) and the SDK v1 client, over streamable HTTP and over stdio.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, startHttpApp, tempDir } from './test-app.js';
import {
  CLIENT_KINDS,
  closeClients,
  connectHttp,
  connectStdio,
  EXPECTED_VERSION,
  runNotesScenario,
} from './test-clients.js';

const TEST_TIMEOUT_MS = 30_000;

afterEach(async () => {
  await closeClients();
  await cleanUp();
});

describe('over streamable HTTP', () => {
  it.each(CLIENT_KINDS)(
    'the %s client negotiates its revision and uses every tool, resource and the prompt',
    async (kind) => {
      const app = await startHttpApp();
      const { client, protocolVersion } = await connectHttp(kind, app.url);
      expect(protocolVersion).toBe(EXPECTED_VERSION[kind]);
      await runNotesScenario(client, kind);
      expect(app.stdout()).toBe('');
    },
    TEST_TIMEOUT_MS,
  );
});

describe('over stdio (the client starts the app, as a desktop client does)', () => {
  it.each(CLIENT_KINDS)(
    'the %s client negotiates its revision and uses every tool, resource and the prompt',
    async (kind) => {
      const { client, protocolVersion, stderr } = await connectStdio(kind, await tempDir());
      expect(protocolVersion).toBe(EXPECTED_VERSION[kind]);
      await runNotesScenario(client, kind);
      // Diagnostics went to stderr (stdout carried the protocol, or the client would have failed).
      expect(stderr?.()).toContain('listening transport=stdio');
    },
    TEST_TIMEOUT_MS,
  );
});
