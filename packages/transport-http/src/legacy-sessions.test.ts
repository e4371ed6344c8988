import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionRelay } from './sessions.js';
import { FakeClock } from './test-clock.js';
import { startTestServer, type TestServer } from './test-host.js';
import {
  ask,
  initializeBody,
  LEGACY_HEADERS,
  LEGACY_VERSION,
  modernRequest,
  rpcError,
  StreamReader,
  sseEvents,
} from './test-http.js';

let server: TestServer | undefined;
afterEach(closeAll);
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function call(id: number, name: string, args: Record<string, unknown> = {}): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
}

async function openSession(base: TestServer): Promise<string> {
  const init = await ask(base.url, { headers: { ...LEGACY_HEADERS }, body: initializeBody() });
  expect(init.status).toBe(200);
  const id = init.headers['mcp-session-id'];
  expect(typeof id).toBe('string');
  const initialized = await ask(base.url, {
    headers: { ...LEGACY_HEADERS, 'mcp-session-id': id as string, 'mcp-protocol-version': LEGACY_VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(initialized.status).toBe(202);
  return id as string;
}

function inSession(id: string): Record<string, string> {
  return { ...LEGACY_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': LEGACY_VERSION };
}

describe('sessionful mode', () => {
  it('issues a session id on initialize, answers with it, and requires it afterwards', async () => {
    server = await startTestServer({ sessions: true });
    const id = await openSession(server);
    const listed = await ask(server.url, {
      headers: inSession(id),
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(listed.status).toBe(200);
    expect(listed.headers['mcp-session-id']).toBe(id);
    expect(listed.text).toContain('"echo"');

    const without = await ask(server.url, {
      headers: { ...LEGACY_HEADERS },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(without.status).toBe(400);
    expect(rpcError(without.json)?.message).toMatch(/Mcp-Session-Id header is required/);
    expect(without.json).toMatchObject({ jsonrpc: '2.0', id: 3 });
  });

  it('answers an unknown session id with 404 and a JSON-RPC error, so clients start over', async () => {
    server = await startTestServer({ sessions: true });
    const answer = await ask(server.url, {
      headers: inSession('no-such-session'),
      body: call(7, 'echo', { text: 'x' }),
    });
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({
      jsonrpc: '2.0',
      error: { code: -32001, message: 'Session not found' },
      id: 7,
    });
  });

  it('keeps an SDK client on one session and ends it with DELETE', async () => {
    server = await startTestServer({ sessions: true });
    const client = new Client({ name: 'session-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    const id = transport.sessionId as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await client.callTool({ name: 'echo', arguments: { text: 'one' } });
    await client.callTool({ name: 'echo', arguments: { text: 'two' } });
    expect(transport.sessionId).toBe(id);
    expect(server.host.connections).toHaveLength(1);

    await transport.terminateSession();
    const after = await ask(server.url, { headers: inSession(id), body: call(9, 'echo', { text: 'x' }) });
    expect(after.status).toBe(404);
    await client.close();
  });

  it('carries a server-to-client request (elicitation) on the stream of the call, and its answer back', async () => {
    server = await startTestServer({ sessions: true });
    const { client } = await connect(server.url, {
      era: '2025-11-25',
      onElicit: () => ({ action: 'accept', content: { name: 'Ada' } }),
    });
    const result = await client.callTool({ name: 'ask', arguments: {} });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'hello Ada' }] });
    await client.close();
  });

  it('delivers server-initiated notifications on the GET stream', async () => {
    server = await startTestServer({ sessions: true });
    const id = await openSession(server);
    const stream = await fetch(server.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': LEGACY_VERSION },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const reader = new StreamReader(stream);
    server.host.events.publish({ kind: 'tools_list_changed' });
    const text = await reader.readUntil((so) => so.includes('list_changed'));
    expect(sseEvents(text).map((event) => JSON.parse(event.data).method)).toContain(
      'notifications/tools/list_changed',
    );
    await reader.cancel();
  });

  it('closes a session idle for sessionIdleTimeoutMs and frees it (fake clock)', async () => {
    const clock = new FakeClock();
    server = await startTestServer(
      { sessions: true, sessionIdleTimeoutMs: 60_000 },
      { internals: { clock } },
    );
    const id = await openSession(server);
    clock.advance(45_000);
    const used = await ask(server.url, { headers: inSession(id), body: call(2, 'echo', { text: 'still' }) });
    expect(used.status).toBe(200);
    clock.advance(45_000);
    const stillThere = await ask(server.url, {
      headers: inSession(id),
      body: call(3, 'echo', { text: 'yes' }),
    });
    expect(stillThere.status).toBe(200);

    const connection = server.host.connections[0];
    clock.advance(60_000 + 15_000);
    expect(connection?.closed).toBe(true);
    const expired = await ask(server.url, {
      headers: inSession(id),
      body: call(4, 'echo', { text: 'gone' }),
    });
    expect(expired.status).toBe(404);
    expect(rpcError(expired.json)?.code).toBe(-32001);
  });

  it('does not expire a session while its GET stream is open', async () => {
    const clock = new FakeClock();
    server = await startTestServer({ sessions: true, sessionIdleTimeoutMs: 1_000 }, { internals: { clock } });
    const id = await openSession(server);
    const stream = await fetch(server.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': LEGACY_VERSION },
    });
    expect(stream.status).toBe(200);
    clock.advance(10_000);
    const used = await ask(server.url, { headers: inSession(id), body: call(2, 'echo', { text: 'alive' }) });
    expect(used.status).toBe(200);
    await stream.body?.cancel();
  });

  it('keeps a quiet GET stream open past the request and keep-alive timeouts', async () => {
    server = await startTestServer({
      sessions: true,
      headersTimeoutMs: 100,
      requestTimeoutMs: 200,
      keepAliveTimeoutMs: 100,
    });
    const id = await openSession(server);
    const stream = await fetch(server.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': LEGACY_VERSION },
    });
    const reader = new StreamReader(stream);
    // Several of node's timeout checks (every 100 ms here) pass while the stream carries nothing.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    server.host.events.publish({ kind: 'tools_list_changed' });
    const text = await reader.readUntil((so) => so.includes('list_changed'));
    expect(reader.ended).toBe(false);
    expect(text).toContain('notifications/tools/list_changed');
    await reader.cancel();
  });

  it('refuses a new session beyond maxSessions with 503 and Retry-After; existing ones keep working', async () => {
    server = await startTestServer({ sessions: true, maxSessions: 2 });
    const first = await openSession(server);
    await openSession(server);
    const refused = await ask(server.url, { headers: { ...LEGACY_HEADERS }, body: initializeBody(5) });
    expect(refused.status).toBe(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.json).toMatchObject({ jsonrpc: '2.0', id: 5, error: { code: -32000 } });

    const existing = await ask(server.url, {
      headers: inSession(first),
      body: call(6, 'echo', { text: 'ok' }),
    });
    expect(existing.status).toBe(200);

    const deleted = await ask(server.url, { method: 'DELETE', headers: inSession(first) });
    expect(deleted.status).toBe(200);
    const again = await ask(server.url, { headers: { ...LEGACY_HEADERS }, body: initializeBody(8) });
    expect(again.status).toBe(200);
  });

  it('still serves 2026-07-28 requests statelessly, without a session', async () => {
    server = await startTestServer({ sessions: true });
    const { body, headers } = modernRequest('tools/call', { name: 'echo', arguments: { text: 'modern' } });
    const answer = await ask(server.url, { headers, body });
    expect(answer.status).toBe(200);
    expect(answer.headers['mcp-session-id']).toBeUndefined();
    expect(answer.json).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'modern' }] } });
  });

  it('answers GET and DELETE without a session id with 400', async () => {
    server = await startTestServer({ sessions: true });
    for (const method of ['GET', 'DELETE']) {
      const answer = await ask(server.url, { method, headers: { accept: 'text/event-stream' } });
      expect(answer.status).toBe(400);
      expect(rpcError(answer.json)?.code).toBe(-32000);
    }
  });

  it('with resumability, primes streams with an event id and replays what was missed (SEP-1699)', async () => {
    server = await startTestServer({ sessions: true, resumability: { retryMs: 500 } });
    const id = await openSession(server);
    const post = await fetch(server.url, {
      method: 'POST',
      headers: inSession(id),
      body: call(2, 'reconnect'),
    });
    expect(post.status).toBe(200);
    const closedEarly = await new StreamReader(post).readToEnd();
    const [priming] = sseEvents(closedEarly);
    expect(priming).toMatchObject({ data: '', retry: 500 });
    expect(priming?.id).toEqual(expect.any(String));
    expect(closedEarly).not.toContain('after reconnect');

    const resumed = await fetch(server.url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': id,
        'mcp-protocol-version': LEGACY_VERSION,
        'last-event-id': priming?.id as string,
      },
    });
    expect(resumed.status).toBe(200);
    const reader = new StreamReader(resumed);
    server.host.gate.release();
    const text = await reader.readUntil((so) => so.includes('after reconnect'));
    const result = sseEvents(text).find((event) => event.data.includes('after reconnect'));
    expect(JSON.parse(result?.data ?? '{}')).toMatchObject({
      id: 2,
      result: { content: [{ text: 'after reconnect' }] },
    });
    await reader.cancel();
  });
});

describe('the sessionRelay seam', () => {
  /**
   * A fleet of two transports sharing an in-memory relay: the owner's endpoint is recorded at claim, and a
   * request for a session held elsewhere is forwarded there (marked, as the contract asks) and its answer
   * copied back. The real relay is `@pier/redis`; this checks what the transport asks of one.
   */
  function memoryRelay(max: number) {
    const owners = new Map<string, string>();
    const calls: string[] = [];
    const relay: SessionRelay = {
      async claim(id, claim) {
        calls.push('claim');
        if (owners.size >= max) return false;
        owners.set(id, claim.endpoint);
        return true;
      },
      touch: () => calls.push('touch'),
      release(id) {
        calls.push('release');
        owners.delete(id);
      },
      async relay({ sessionId, req, res, body }) {
        const endpoint = owners.get(sessionId);
        if (endpoint === undefined) return false;
        calls.push('relay');
        const headers: Record<string, string> = { 'x-pier-relayed': '1' };
        for (const name of ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version']) {
          const value = req.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        const answer = await ask(endpoint, {
          method: req.method as string,
          headers,
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        res.writeHead(answer.status, {
          'content-type': String(answer.headers['content-type'] ?? 'text/plain'),
        });
        res.end(answer.text);
        return true;
      },
    };
    return { relay, owners, calls };
  }

  let other: TestServer | undefined;
  afterEach(async () => {
    await other?.close();
    other = undefined;
  });

  it('serves a session opened on one replica through another, caps the fleet, and releases on DELETE', async () => {
    const { relay, owners, calls } = memoryRelay(1);
    server = await startTestServer({ sessions: true, sessionRelay: relay });
    other = await startTestServer({ sessions: true, sessionRelay: relay });
    const id = await openSession(server);
    expect(owners.get(id)).toBe(server.url);

    const relayed = await ask(other.url, {
      headers: inSession(id),
      body: call(2, 'echo', { text: 'via B' }),
    });
    expect(relayed.status).toBe(200);
    expect(relayed.text).toContain('via B');
    expect(calls).toContain('relay');

    // One session in the fleet: the other replica refuses a second one.
    const refused = await ask(other.url, { headers: { ...LEGACY_HEADERS }, body: initializeBody() });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBeDefined();

    // A request already relayed is never relayed again: the replica answers for itself.
    const looped = await ask(other.url, {
      headers: { ...inSession(id), 'x-pier-relayed': '1' },
      body: call(3, 'echo', { text: 'x' }),
    });
    expect(looped.status).toBe(404);

    const deleted = await ask(other.url, { method: 'DELETE', headers: inSession(id) });
    expect(deleted.status).toBe(200);
    expect(owners.size).toBe(0);
    expect(calls).toContain('release');
    const gone = await ask(server.url, { headers: inSession(id), body: call(4, 'echo', { text: 'x' }) });
    expect(gone.status).toBe(404);
  });

  it('a relay that throws (its store unreachable) gets 503 with Retry-After, never a 404', async () => {
    const broken: SessionRelay = {
      claim: async () => {
        throw new Error('store down');
      },
      touch: () => {},
      release: () => {},
      relay: async () => {
        throw new Error('store down');
      },
    };
    server = await startTestServer({ sessions: true, sessionRelay: broken });
    const opened = await ask(server.url, { headers: { ...LEGACY_HEADERS }, body: initializeBody() });
    expect(opened.status).toBe(503);
    expect(opened.headers['retry-after']).toBe('1');
    const relayed = await ask(server.url, {
      headers: inSession('elsewhere'),
      body: call(5, 'echo', { text: 'x' }),
    });
    expect(relayed.status).toBe(503);
    expect(relayed.json).toMatchObject({ id: 5, error: { code: -32000 } });
  });

  it('without a relay, a session held by another replica is unknown (404)', async () => {
    server = await startTestServer({ sessions: true });
    other = await startTestServer({ sessions: true });
    const id = await openSession(server);
    const answer = await ask(other.url, { headers: inSession(id), body: call(2, 'echo', { text: 'x' }) });
    expect(answer.status).toBe(404);
  });
});
