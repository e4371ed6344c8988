import { afterEach, describe, expect, it } from 'vitest';
import { connect } from './connect.js';
import { ERAS } from './eras.js';
import { TestingError } from './errors.js';
import { notesServer } from './fixtures/notes.js';
import { closeAll } from './registry.js';

afterEach(closeAll);

const TRANSPORTS = ['memory', 'http'] as const;
const MATRIX = TRANSPORTS.flatMap((transport) => ERAS.map((era) => ({ era, transport })));

function textOf(result: unknown): string {
  return (result as { content: { text?: string }[] }).content[0]?.text ?? '';
}

describe('connect: every era over both transports', () => {
  it.each(MATRIX)('$era over $transport: lists, calls, reads, prompts', async ({ era, transport }) => {
    const { client, protocolVersion, url } = await connect(notesServer(), { era, transport });
    expect(protocolVersion).toBe(era);
    expect(url === undefined).toBe(transport === 'memory');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'echo',
      'count',
      'add_note',
      'summarize',
      'roots',
    ]);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('hi');
    const read = await client.readResource({ uri: 'notes://all' });
    expect(read.contents[0]).toMatchObject({ uri: 'notes://all', text: 'buy milk' });
    const prompt = await client.getPrompt({ name: 'review', arguments: { topic: 'notes' } });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Review notes.' });
  });

  it('auto negotiates 2026-07-28 with a Pier server, in memory and over HTTP', async () => {
    expect((await connect(notesServer(), { era: 'auto' })).protocolVersion).toBe('2026-07-28');
    expect((await connect(notesServer(), { era: 'auto', transport: 'http' })).protocolVersion).toBe(
      '2026-07-28',
    );
  });

  it('the default is a 2026-07-28 client in memory', async () => {
    const connected = await connect(notesServer());
    expect(connected).toMatchObject({
      era: '2026-07-28',
      protocolVersion: '2026-07-28',
      transport: 'memory',
    });
  });
});

describe('connect over HTTP', () => {
  it('starts the server on a free loopback port and closes it on close()', async () => {
    const server = notesServer();
    const connected = await connect(server, { transport: 'http', era: '2025-11-25' });
    expect(connected.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.state).toBe('ready');
    await connected.close();
    expect(server.state).toBe('closed');
    await connected.close(); // idempotent
  });

  it('joins a server that already listens, and leaves it running', async () => {
    const server = notesServer();
    const { url } = await server.listen({ transport: 'streamable-http', port: 0 });
    const first = await connect(server, { transport: 'http' });
    const second = await connect(url, { era: '2025-06-18' });
    expect(first.url).toBe(url);
    expect(second.protocolVersion).toBe('2025-06-18');
    await first.close();
    await second.close();
    expect(server.state).toBe('ready');
    await server.close();
  });

  it('passes listen options when it starts the server (sessions for a 2025 client)', async () => {
    const { client } = await connect(notesServer(), {
      transport: 'http',
      era: '2025-11-25',
      http: { sessions: true },
      onElicit: () => ({ action: 'accept', content: { priority: 'high' } }),
    });
    expect(textOf(await client.callTool({ name: 'add_note', arguments: { text: 'call Ada' } }))).toBe(
      'added; 2 notes',
    );
  });
});

describe('answering the server from the test', () => {
  it('onElicit answers elicitation/create with what the test returns', async () => {
    const asked: unknown[] = [];
    const { client } = await connect(notesServer(), {
      era: '2025-11-25',
      onElicit: (request) => {
        asked.push(request.message);
        return { action: 'accept', content: { priority: 'low' } };
      },
    });
    expect(textOf(await client.callTool({ name: 'add_note', arguments: { text: 'tea' } }))).toBe(
      'added; 2 notes',
    );
    expect(asked).toEqual(['Add "tea"?']);
    const read = await client.readResource({ uri: 'notes://all' });
    expect((read.contents[0] as { text: string }).text).toBe('buy milk\ntea (low)');
  });

  it('onSample answers sampling/createMessage', async () => {
    const { client } = await connect(notesServer(), {
      era: '2025-06-18',
      onSample: (request) => ({
        model: 'test-model',
        role: 'assistant',
        content: { type: 'text', text: `${request.messages.length} message(s)` },
      }),
    });
    expect(textOf(await client.callTool({ name: 'summarize', arguments: {} }))).toBe('Summary: 1 message(s)');
  });

  it('roots answers roots/list, from a list or a function', async () => {
    const listed = await connect(notesServer(), { era: '2025-11-25', roots: [{ uri: 'file:///work' }] });
    expect(textOf(await listed.client.callTool({ name: 'roots', arguments: {} }))).toBe('file:///work');
    const computed = await connect(notesServer(), {
      era: '2025-11-25',
      roots: async () => [{ uri: 'file:///a' }, { uri: 'file:///b', name: 'b' }],
    });
    expect(textOf(await computed.client.callTool({ name: 'roots', arguments: {} }))).toBe(
      'file:///a file:///b',
    );
  });

  it('without onElicit the client declares no elicitation, and the tool says it cannot ask', async () => {
    const { client } = await connect(notesServer(), { era: '2025-11-25' });
    const result = await client.callTool({ name: 'add_note', arguments: { text: 'tea' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/elicitation/);
  });
});

describe('collecting what the server sends', () => {
  it.each(['2025-11-25', '2026-07-28'] as const)('%s: the progress of a call', async (era) => {
    const connected = await connect(notesServer(), { era });
    const progress = connected.progress();
    const result = await connected.client.callTool(
      { name: 'count', arguments: { to: 3 } },
      { onprogress: progress.onprogress },
    );
    expect(textOf(result)).toBe('counted to 3');
    expect(progress.updates).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
  });

  it('2025 era: log messages arrive in notifications, in order', async () => {
    const connected = await connect(notesServer(), { era: '2025-11-25' });
    await connected.client.setLoggingLevel('debug');
    await connected.client.callTool({ name: 'count', arguments: { to: 1 } });
    await connected.client.callTool({ name: 'count', arguments: { to: 2 } });
    const log = await connected.waitForNotification('notifications/message', {
      where: (n) => n.params?.data === 'counted to 2',
    });
    expect(log.params).toMatchObject({ level: 'info' });
    expect(connected.notifications.map((n) => n.params?.data)).toEqual(['counted to 1', 'counted to 2']);
  });

  it('2025 era: a subscribed resource update arrives in notifications', async () => {
    const connected = await connect(notesServer(), {
      era: '2025-11-25',
      onElicit: () => ({ action: 'accept', content: { priority: 'high' } }),
    });
    await connected.client.subscribeResource({ uri: 'notes://all' });
    await connected.client.callTool({ name: 'add_note', arguments: { text: 'tea' } });
    const update = await connected.waitForNotification('notifications/resources/updated');
    expect(update.params).toEqual({ uri: 'notes://all' });
  });

  it('2026-07-28 in memory: a resource update reaches a subscriptions/listen stream', async () => {
    const server = notesServer();
    const connected = await connect(server, { era: '2026-07-28' });
    const subscription = await connected.client.listen({ resourceSubscriptions: ['notes://all'] });
    await server.notifyResourceUpdated('notes://all');
    const update = await connected.waitForNotification('notifications/resources/updated');
    expect(update.params).toMatchObject({ uri: 'notes://all' });
    await subscription.close();
  });

  it('waitForNotification rejects with TIMEOUT, naming what did arrive', async () => {
    const connected = await connect(notesServer(), { era: '2025-11-25' });
    const waiting = connected.waitForNotification('notifications/resources/updated', { timeoutMs: 50 });
    await expect(waiting).rejects.toMatchObject({ code: 'TIMEOUT' });
    await expect(waiting).rejects.toThrow(/no notifications\/resources\/updated within 50 ms/);
  });
});

describe('bad input', () => {
  const server = notesServer();

  it.each([
    [{ era: '2025-01-01' }, /era must be 2026-07-28, 2025-11-25, .* or auto \(got "2025-01-01"\)/],
    [{ transport: 'stdio' }, /transport must be memory or http \(got "stdio"\)/],
    [{ onElicit: 'yes' }, /onElicit must be a function/],
    [{ roots: [{ uri: '/tmp' }] }, /roots\[0\]\.uri must be a file:\/\/ URI \(got "\/tmp"\)/],
    [{ timeoutMs: 0 }, /timeoutMs must be a whole number/],
    [{ onElicitation: () => ({}) }, /unknown option "onElicitation"; known options: era, transport/],
    [{ http: { sessions: true } }, /http options apply only when connect starts a PierServer over http/],
  ])('%o is OPTIONS_INVALID', async (options, message) => {
    const attempt = connect(server, options as never);
    await expect(attempt).rejects.toBeInstanceOf(TestingError);
    await expect(attempt).rejects.toMatchObject({ code: 'OPTIONS_INVALID', message });
  });

  it('every problem is named at once', async () => {
    await expect(connect(server, { era: 'x', transport: 'y' } as never)).rejects.toThrow(
      /connect: 2 problems:\n {2}- era must be .*\n {2}- transport must be/,
    );
  });

  it('a target that is neither a PierServer nor an http URL', async () => {
    await expect(connect({} as never)).rejects.toThrow(
      /the target must be a PierServer \(from createServer\)/,
    );
    await expect(connect('ftp://example.com')).rejects.toMatchObject({ code: 'OPTIONS_INVALID' });
    await expect(connect('http://127.0.0.1:9/mcp', { transport: 'memory' })).rejects.toThrow(
      /transport memory needs a PierServer/,
    );
  });

  it('a URL where nothing listens is CONNECT_FAILED with the SDK error as cause', async () => {
    const attempt = connect('http://127.0.0.1:9/mcp', { era: '2025-11-25', timeoutMs: 2_000 });
    await expect(attempt).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
    await expect(attempt).rejects.toThrow(
      /a 2025-11-25 client could not connect to http:\/\/127\.0\.0\.1:9\/mcp/,
    );
  });
});
