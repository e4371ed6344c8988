// Over stdio, in a child process, with the official SDK client in both eras: a tool limit answers a tool
// error after N calls; a method limit a JSON-RPC error (-32029) carrying the limit and when to retry.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { LIMIT_EXCEEDED } from './index.js';
import { textOf } from './test-server.js';

const SERVER = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'stdio-server.mjs');

describe.each(['modern', 'legacy'] as const)('over stdio, %s era', (era) => {
  it('limits tools with a tool error and methods with a JSON-RPC error', async () => {
    const client = new Client(
      { name: 'limits-stdio', version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
    );
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'pipe' }),
    );
    try {
      const results = [];
      for (let call = 0; call < 3; call++)
        results.push(await client.callTool({ name: 'add_note', arguments: {} }));
      expect(results.map((result) => result.isError === true)).toEqual([false, false, true]);
      expect(textOf(results[2] as never)).toMatch(
        /^Rate limit "add-note" reached \(2 calls per minute per principal\); retry in \d+ s\.$/,
      );
      await client.listTools();
      const refused = await client.listTools().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ProtocolError);
      expect(refused).toMatchObject({
        code: LIMIT_EXCEEDED,
        data: { limit: 'lists', kind: 'rate', reason: 'exceeded', retryAfter: expect.any(Number) },
      });
    } finally {
      await client.close();
    }
  });
});
