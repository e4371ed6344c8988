// What the conformance suite does not check, with the SDK's v1 client (the one the suite drives):
// updates really reach subscribers, logging/setLevel is per session, SSE polling with a 2025-11-25
// client, and a stateless server refusing sampling at once instead of waiting for an answer.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WATCHED_URI } from './everything-server.js';
import { type RunningApp, startApp } from './test-helpers.js';

const RETRY_MS = 200;

let clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  clients = [];
});

async function connect(url: string, capabilities: Record<string, object> = {}): Promise<Client> {
  const client = new Client({ name: 'pier-conformance-test', version: '1.0.0' }, { capabilities });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Resolves once `check` holds, polling every 10 ms; rejects after 5 s with `what`. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited >= 5_000) throw new Error(`still waiting for ${what} after 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((block) => block.text ?? '').join('');

describe('sessionful mode', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp('sessions', ['--retry-ms', String(RETRY_MS)]);
  }, 20_000);
  afterAll(async () => {
    expect(await app?.stop()).toBe(0);
  }, 10_000);

  it('sends notifications/resources/updated to subscribed sessions only, until they unsubscribe', async () => {
    const watcher = await connect(app.url);
    const bystander = await connect(app.url);
    const writer = await connect(app.url);
    const heard = { watcher: [] as string[], bystander: [] as string[] };
    watcher.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heard.watcher.push(n.params.uri);
    });
    bystander.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heard.bystander.push(n.params.uri);
    });
    await watcher.subscribeResource({ uri: WATCHED_URI });

    await writer.callTool({ name: 'update_watched_resource', arguments: { content: 'version 2' } });
    await eventually(() => heard.watcher.length === 1, 'the update');
    expect(heard.watcher).toEqual([WATCHED_URI]);
    const read = await watcher.readResource({ uri: WATCHED_URI });
    expect(read.contents).toEqual([{ uri: WATCHED_URI, mimeType: 'text/plain', text: 'version 2' }]);

    await watcher.unsubscribeResource({ uri: WATCHED_URI });
    await writer.callTool({ name: 'update_watched_resource', arguments: { content: 'version 3' } });
    // A marker the watcher does hear, sent after the update it must not hear: order is kept on its stream.
    await watcher.subscribeResource({ uri: WATCHED_URI });
    await writer.callTool({ name: 'update_watched_resource', arguments: { content: 'version 4' } });
    await eventually(() => heard.watcher.length === 2, 'the second update');
    expect(heard.watcher).toEqual([WATCHED_URI, WATCHED_URI]);
    expect(heard.bystander).toEqual([]);
  });

  it('applies logging/setLevel to the session that set it', async () => {
    const quiet = await connect(app.url);
    const chatty = await connect(app.url);
    const logs = { quiet: [] as unknown[], chatty: [] as unknown[] };
    quiet.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.quiet.push(n.params.data);
    });
    chatty.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.chatty.push(n.params.data);
    });
    await quiet.setLoggingLevel('error');
    await chatty.setLoggingLevel('info');
    await quiet.callTool({ name: 'test_tool_with_logging', arguments: {} });
    await chatty.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(logs.quiet).toEqual([]);
    expect(logs.chatty).toEqual([
      'Tool execution started',
      'Tool processing data',
      'Tool execution completed',
    ]);
  });

  it('closes a call’s stream before its answer (SSE polling), and a 2025-11-25 client still gets it', async () => {
    const client = await connect(app.url);
    const result = await client.callTool({ name: 'test_reconnection', arguments: {} });
    expect(text(result)).toBe('Reconnection test completed: the stream was closed before this answer');
  });

  it('primes the stream with an event id and the retry delay, and replays the answer after Last-Event-ID', async () => {
    const client = await connect(app.url);
    const transport = client.transport as StreamableHTTPClientTransport;
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': transport.sessionId as string,
      'mcp-protocol-version': '2025-11-25',
    };
    const posted = await fetch(app.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'poll-1',
        method: 'tools/call',
        params: { name: 'test_reconnection', arguments: {} },
      }),
    });
    expect(posted.headers.get('content-type')).toBe('text/event-stream');
    const first = parseEvents(await posted.text());
    // The stream ends after the priming event: the answer is not on it.
    expect(first).toEqual([{ id: expect.any(String), retry: RETRY_MS, data: '' }]);

    const resumed = await fetch(app.url, {
      headers: { ...headers, 'last-event-id': first[0]?.id as string },
    });
    expect(resumed.status).toBe(200);
    const answer = await readUntil(resumed, '"id":"poll-1"');
    expect(JSON.parse(answer.data)).toMatchObject({
      jsonrpc: '2.0',
      id: 'poll-1',
      result: {
        content: [
          { type: 'text', text: 'Reconnection test completed: the stream was closed before this answer' },
        ],
      },
    });
  });
});

describe('stateless mode', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp('stateless');
  }, 20_000);
  afterAll(async () => {
    expect(await app?.stop()).toBe(0);
  }, 10_000);

  it('answers a tool that asks for sampling with an error at once, never asking the client', async () => {
    const client = await connect(app.url, { sampling: {} });
    let asked = 0;
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked++;
      return { role: 'assistant', model: 'test', content: { type: 'text', text: 'hi' } };
    });
    // Bounded by the test's timeout (5 s), far below the 60 s a request without an answer would wait.
    const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hello' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'ctx.sample: this HTTP server is stateless, so no session carries a request to the client (listen with sessions: true)',
    );
    expect(asked).toBe(0);
  });

  it('refuses resources/subscribe, saying why', async () => {
    const client = await connect(app.url);
    await expect(client.subscribeResource({ uri: WATCHED_URI })).rejects.toThrow(
      /Subscriptions need a connection that outlives the request/,
    );
  });
});

interface SseEvent {
  readonly id?: string;
  readonly retry?: number;
  readonly data: string;
}

/** Parses a complete SSE body (comments and `event:` lines ignored). */
function parseEvents(body: string): SseEvent[] {
  return body
    .split(/\n\n/)
    .filter((block) => /^(id|data|retry):/m.test(block))
    .map((block) => {
      const event: { id?: string; retry?: number; data: string } = { data: '' };
      for (const line of block.split('\n')) {
        const [field, ...rest] = line.split(':');
        const value = rest.join(':').replace(/^ /, '');
        if (field === 'id') event.id = value;
        else if (field === 'retry') event.retry = Number(value);
        else if (field === 'data') event.data += value;
      }
      return event;
    });
}

/** Reads an SSE response until an event whose data contains `marker`, then cancels it. */
async function readUntil(response: Response, marker: string): Promise<SseEvent> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let received = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`stream ended without ${marker}:\n${received}`);
      received += decoder.decode(value, { stream: true });
      const found = parseEvents(received).find((event) => event.data.includes(marker));
      if (found !== undefined) return found;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
