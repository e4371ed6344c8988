// src/server.test.ts: the official MCP client against the server, for a 2026-07-28 client and a 2025 one.
import { createServer } from '@pier/core';
import { closeAll, connect, ERAS } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { AppServer } from './server.js';

const newServer = () =>
  createServer(AppServer, { apiKey: 'test-key' }, { logLevel: 'warn', handleSignals: false });

afterEach(closeAll);

describe.each(['2026-07-28', '2025-11-25'] as const)('a %s client', (era) => {
  it('greets', async () => {
    const { client } = await connect(newServer(), { era });
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
  });

  it('refuses an empty name with a tool error', async () => {
    const { client } = await connect(newServer(), { era });
    const result = await client.callTool({ name: 'greet', arguments: { name: '' } });
    expect(result.isError).toBe(true);
  });
});

it('knows every era the tests can speak', () => {
  expect(ERAS).toContain('2026-07-28');
});
