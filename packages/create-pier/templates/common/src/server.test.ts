// The server as MCP clients see it: @pier/testing connects the official SDK client, for the
// 2026-07-28 protocol revision and for 2025 clients.
import { createServer } from '@pier/core';
import { closeAll, connect, type Era } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
// #if decorators
import { AppServer } from './server.js';

const newServer = () => createServer(AppServer, { apiKey: 'test-key' }, { logLevel: 'warn', handleSignals: false });
// #else
import { appServer } from './server.js';

const newServer = () => createServer(appServer({ apiKey: 'test-key' }), { logLevel: 'warn', handleSignals: false });
// #endif

afterEach(closeAll);

describe.each<Era>(['2026-07-28', '2025-11-25'])('a %s client', (era) => {
  it('greets by name', async () => {
    const { client } = await connect(newServer(), { era });
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
  });

  it('refuses a greeting without a name', async () => {
    const { client } = await connect(newServer(), { era });
    const result = await client.callTool({ name: 'greet', arguments: { name: '' } });
    expect(result.isError).toBe(true);
  });

  it('reads the about resource without revealing the key', async () => {
    const { client } = await connect(newServer(), { era });
    const { contents } = await client.readResource({ uri: 'about://server' });
    expect(contents[0]).toMatchObject({ uri: 'about://server', text: '__NAME__ 0.1.0; API key configured' });
    expect(JSON.stringify(contents)).not.toContain('test-key');
  });

  it('fills the explain prompt', async () => {
    const { client } = await connect(newServer(), { era });
    const { messages } = await client.getPrompt({ name: 'explain', arguments: { topic: 'MCP' } });
    expect(messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Explain MCP in one short paragraph.' } },
    ]);
  });
// #if http

  it('answers over streamable HTTP too', async () => {
    const { client } = await connect(newServer(), { era, transport: 'http' });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['greet']);
  });
// #endif
});
