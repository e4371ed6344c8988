// LegacyTransport replaces the SDK's WebStandardStreamableHTTPServerTransport beneath the SDK server. These
// tests hold it to that: the same requests, sent to a Pier server and to a reference server built the SDK's
// documented way, must get the same statuses and the same JSON-RPC messages back.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReferenceServer, startTestServer, type TestServer } from './test-host.js';
import {
  ask,
  type HttpAnswer,
  initializeBody,
  LEGACY_HEADERS,
  LEGACY_VERSION,
  sseEvents,
} from './test-http.js';

/** The SDK's own wiring: one WebStandardStreamableHTTPServerTransport per session (or per request). */
async function startReference(sessions: boolean): Promise<{ url: string; close: () => Promise<void> }> {
  const transports = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers.set(name, value);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method ?? 'GET',
      headers,
      ...(req.method === 'POST' && { body: Buffer.concat(chunks) }),
    });
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? transports.get(id) : undefined;
    if (typeof id === 'string' && transport === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
      );
      return;
    }
    if (transport === undefined) {
      const created = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: sessions ? randomUUID : undefined,
        onsessioninitialized: (sessionId) => void transports.set(sessionId, created),
      });
      await buildReferenceServer().connect(created);
      transport = created;
    }
    const response = await transport.handleRequest(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Status and JSON-RPC messages of an answer, whether it came as JSON or as an SSE stream. */
function normalize(answer: HttpAnswer): { status: number; messages: unknown[] } {
  if (answer.text === '') return { status: answer.status, messages: [] };
  if (String(answer.headers['content-type']).startsWith('text/event-stream')) {
    const messages = sseEvents(answer.text)
      .filter((event) => event.data !== '')
      .map((event) => JSON.parse(event.data));
    return { status: answer.status, messages };
  }
  const json = answer.json;
  return { status: answer.status, messages: Array.isArray(json) ? json : [json] };
}

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

type Step = (session: string | undefined) => {
  method?: string;
  headers: Record<string, string>;
  body?: string;
};
const inSession = (session: string | undefined, extra: Record<string, string> = {}) => ({
  ...LEGACY_HEADERS,
  'mcp-protocol-version': LEGACY_VERSION,
  ...(session !== undefined && { 'mcp-session-id': session }),
  ...extra,
});

const sessionSteps: Record<string, Step> = {
  'a tool call': (s) => ({ headers: inSession(s), body: JSON.stringify(call(2, 'echo', { text: 'a' })) }),
  'a batch of two calls': (s) => ({
    headers: inSession(s),
    body: JSON.stringify([call(3, 'echo', { text: 'b' }), call(4, 'echo', { text: 'c' })]),
  }),
  'a batch of 101 messages': (s) => ({
    headers: inSession(s),
    body: JSON.stringify(Array(101).fill(initialized)),
  }),
  'a notification': (s) => ({ headers: inSession(s), body: JSON.stringify(initialized) }),
  'an unsupported protocol version': (s) => ({
    headers: inSession(s, { 'mcp-protocol-version': '1999-01-01' }),
    body: JSON.stringify(call(5, 'echo', { text: 'd' })),
  }),
  'Accept without text/event-stream': (s) => ({
    headers: inSession(s, { accept: 'application/json' }),
    body: JSON.stringify(call(6, 'echo', { text: 'e' })),
  }),
  'a second initialize': (s) => ({ headers: inSession(s), body: initializeBody(7) }),
  'an unknown tool': (s) => ({ headers: inSession(s), body: JSON.stringify(call(8, 'missing')) }),
  'invalid tool arguments': (s) => ({
    headers: inSession(s),
    body: JSON.stringify(call(9, 'echo', { text: 42 })),
  }),
  'a GET without Accept: text/event-stream': (s) => ({
    method: 'GET',
    headers: inSession(s, { accept: 'application/json' }),
  }),
};

async function openSession(url: string): Promise<string> {
  const init = await ask(url, { headers: LEGACY_HEADERS, body: initializeBody() });
  const session = init.headers['mcp-session-id'] as string;
  await ask(url, { headers: inSession(session), body: JSON.stringify(initialized) });
  return session;
}

describe.each([true, false])('LegacyTransport answers like the SDK transport (sessions: %s)', (sessions) => {
  let pier: TestServer;
  let reference: Awaited<ReturnType<typeof startReference>>;
  beforeAll(async () => {
    pier = await startTestServer({ sessions });
    reference = await startReference(sessions);
  });
  afterAll(async () => {
    await pier.close();
    await reference.close();
  });

  it('initialize', async () => {
    const ours = normalize(await ask(pier.url, { headers: LEGACY_HEADERS, body: initializeBody() }));
    const theirs = normalize(await ask(reference.url, { headers: LEGACY_HEADERS, body: initializeBody() }));
    expect(ours).toEqual(theirs);
    expect(ours.status).toBe(200);
  });

  it.each(Object.keys(sessionSteps))('%s', async (name) => {
    if (!sessions && name.startsWith('a GET')) return;
    const step = sessionSteps[name] as Step;
    const ourSession = sessions ? await openSession(pier.url) : undefined;
    const theirSession = sessions ? await openSession(reference.url) : undefined;
    const ours = step(ourSession);
    const theirs = step(theirSession);
    const ourAnswer = normalize(
      await ask(pier.url, {
        method: ours.method ?? 'POST',
        headers: ours.headers,
        ...(ours.body !== undefined && { body: ours.body }),
      }),
    );
    const theirAnswer = normalize(
      await ask(reference.url, {
        method: theirs.method ?? 'POST',
        headers: theirs.headers,
        ...(theirs.body !== undefined && { body: theirs.body }),
      }),
    );
    expect(ourAnswer).toEqual(theirAnswer);
  });
});

describe('LegacyTransport', () => {
  let pier: TestServer;
  beforeAll(async () => {
    pier = await startTestServer({ sessions: true });
  });
  afterAll(async () => {
    pier.host.gate.release();
    await pier.close();
  });

  it('answers a quick call with one JSON body and streams when something comes first', async () => {
    const session = await openSession(pier.url);
    const quick = await ask(pier.url, {
      headers: inSession(session),
      body: JSON.stringify(call(2, 'echo', { text: 'q' })),
    });
    expect(quick.headers['content-type']).toBe('application/json');
    expect(quick.headers['content-length']).toBe(String(Buffer.byteLength(quick.text)));
    const withProgress = await ask(pier.url, {
      headers: inSession(session),
      body: JSON.stringify({
        ...call(3, 'notify'),
        params: { name: 'notify', arguments: {}, _meta: { progressToken: 't' } },
      }),
    });
    expect(withProgress.headers['content-type']).toBe('text/event-stream');
    expect(normalize(withProgress).messages).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 't', progress: 1, total: 2 },
      },
      expect.objectContaining({
        id: 3,
        result: expect.objectContaining({ content: [{ type: 'text', text: 'notified' }] }),
      }),
    ]);
  });

  it('refuses a second GET stream on a session with 409', async () => {
    const session = await openSession(pier.url);
    const headers = {
      accept: 'text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': LEGACY_VERSION,
    };
    const first = await fetch(pier.url, { headers });
    expect(first.status).toBe(200);
    const second = await ask(pier.url, { method: 'GET', headers });
    expect(second.status).toBe(409);
    expect(second.json).toMatchObject({
      error: { message: 'Conflict: Only one SSE stream is allowed per session' },
    });
    await first.body?.cancel();
  });

  it('gives handlers the HTTP request (ctx.http.req)', async () => {
    const session = await openSession(pier.url);
    const answer = await ask(pier.url, {
      headers: inSession(session, { 'x-pier-test': 'seen' }),
      body: JSON.stringify(call(4, 'header')),
    });
    expect(answer.json).toMatchObject({ result: { content: [{ text: 'seen' }] } });
  });
});

describe('LegacyTransport without sessions', () => {
  it('aborts the call’s signal when the client goes away mid-call', async () => {
    const pier = await startTestServer();
    try {
      const body = JSON.stringify(call(1, 'slow'));
      const req = request(pier.url, {
        method: 'POST',
        headers: { ...LEGACY_HEADERS, 'content-length': body.length },
      });
      req.on('error', () => {});
      req.end(body);
      await pier.host.gate.whenWaiting();
      req.destroy();
      await expect.poll(() => pier.host.gate.aborted).toBe(1);
    } finally {
      pier.host.gate.release();
      await pier.close();
    }
  });
});
