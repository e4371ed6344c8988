import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from './connect.js';
import { spawnServer } from './process.js';
import { closeAll } from './registry.js';

const SERVE = fileURLToPath(new URL('./fixtures/serve.mjs', import.meta.url));

afterEach(closeAll);

describe('spawnServer', () => {
  it('resolves with the URL core logs, and a client of either era reaches it', async () => {
    const app = await spawnServer(process.execPath, [SERVE, '0']);
    expect(app.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(app.stderr()).toContain('listening transport=streamable-http');
    for (const era of ['2026-07-28', '2025-11-25'] as const) {
      const { client, close } = await connect(app.url, { era });
      expect((await client.callTool({ name: 'echo', arguments: { text: era } })).content).toEqual([
        { type: 'text', text: era },
      ]);
      await close();
    }
  });

  it('reads the URL where urlPattern says, and close(signal) ends the process gracefully', async () => {
    const app = await spawnServer(process.execPath, [SERVE, '0', 'print'], {
      urlPattern: /^ready at (\S+)$/m,
    });
    expect(app.url).toMatch(/\/mcp$/);
    expect(await app.close('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(app.stderr()).toContain('closing reason=SIGTERM');
  });

  it('closeAll() kills a process still running', async () => {
    const app = await spawnServer(process.execPath, [SERVE, '0']);
    await closeAll();
    expect(await app.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('a process that exits first is PROCESS_FAILED, with its output', async () => {
    const attempt = spawnServer(process.execPath, [SERVE, 'fail']);
    await expect(attempt).rejects.toMatchObject({ code: 'PROCESS_FAILED' });
    await expect(attempt).rejects.toThrow(
      /exited \(3\) before printing its URL; output:\ncannot start: no database/,
    );
  });

  it('no URL in time is TIMEOUT, and the process is killed', async () => {
    const attempt = spawnServer(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { timeoutMs: 300 });
    await expect(attempt).rejects.toMatchObject({ code: 'TIMEOUT' });
  });

  it('bad options are OPTIONS_INVALID before anything starts', async () => {
    await expect(spawnServer('')).rejects.toMatchObject({ code: 'OPTIONS_INVALID' });
    await expect(spawnServer('node', [], { urlPattern: 'url=' as never })).rejects.toThrow(
      /urlPattern must be a RegExp/,
    );
    await expect(spawnServer('node', [], { timeoutMs: -1 })).rejects.toThrow(/timeoutMs must be/);
  });
});
