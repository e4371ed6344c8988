// A built server as its own process, as production runs it: spawnServer waits for the URL it logs.
import { closeAll, connect, spawnServer } from '@pier/testing';
import { afterEach, expect, it } from 'vitest';

afterEach(closeAll);

it('serves the built entry point over HTTP', async () => {
  const app = await spawnServer('node', ['dist/main.js', '--transport', 'streamable-http', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', API_KEY: 'test-key' },
  });
  const { client } = await connect(app.url, { era: '2025-11-25' });
  expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  expect((await app.close('SIGTERM')).code).toBe(0);
});
