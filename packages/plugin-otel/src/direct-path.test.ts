// Pier answers an everyday stateless tools/call without building an SDK server (core's direct path). With
// the plugin installed it still does, and what it records must be what the SDK path records: each call
// below goes over real HTTP to two servers built alike, one on the direct path and one where an empty
// extension turns it off (every call then goes through an SDK server), each with its own in-memory
// exporter and metric reader. Spans (name, kind, parent, attributes, status) and the operation histogram
// must be equal, for a text result, a tool that throws (an error result) and a result only the SDK can
// write (a replay: reported once).
import { McpServer } from '@modelcontextprotocol/server';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createServer, defineServer, defineTool, type PierPlugin, type PierServer } from '@pier/core';
import { httpTransport } from '@pier/transport-http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { otelPlugin } from './index.js';
import {
  clientSpan,
  type HistogramPoint,
  tools as sharedTools,
  type Telemetry,
  telemetry,
} from './test-otel.js';

const MODERN = '2026-07-28';
/** The shared test tools (`echo`, `login` that throws, `ask`), and one whose result only the SDK writes. */
const tools = [
  ...sharedTools,
  defineTool({
    name: 'annotated',
    input: { text: z.string() },
    handler: ({ text }) => ({ content: [{ type: 'text' as const, text, annotations: { priority: 1 } }] }),
  }),
];

/** Every call through an SDK server: an extension installs handlers on each, so core builds no direct path. */
const sdkOnly: PierPlugin = { name: 'sdk-only', setup: (ctx) => ctx.extendMcpServer({}) };

interface Side {
  readonly otel: Telemetry;
  readonly server: PierServer;
  url: string;
}

const sides: Record<'direct' | 'sdk', Side> = {} as never;
const connect = vi.spyOn(McpServer.prototype, 'connect');
/** The SDK server runs a tool through this (not public API): the direct path never reaches it. */
const executeTool = vi.spyOn(
  McpServer.prototype as unknown as { executeToolHandler: () => unknown },
  'executeToolHandler',
);

beforeAll(async () => {
  for (const side of ['direct', 'sdk'] as const) {
    const otel = await telemetry();
    const plugins = [otelPlugin({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider })];
    const server = createServer(defineServer({ name: 'otel-direct', version: '1.0.0', tools }), {
      handleSignals: false,
      logStream: { write: () => true },
      plugins: side === 'sdk' ? [...plugins, sdkOnly] : plugins,
    });
    const { url } = await server.listen(httpTransport({ port: 0 }));
    sides[side] = { otel, server, url };
  }
});

afterAll(async () => {
  connect.mockRestore();
  executeTool.mockRestore();
  await Promise.all(Object.values(sides).map((side) => side.server.close()));
});

/** A tools/call as a client of `era` sends it, with the caller's trace in the `traceparent` header. */
function request(era: 'modern' | 'legacy', id: number, name: string, args: object, traceparent: string) {
  const params: Record<string, unknown> = { name, arguments: args };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    traceparent,
  };
  if (era === 'modern') {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'otel-direct', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    Object.assign(headers, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name });
  } else {
    headers['mcp-protocol-version'] = '2025-11-25';
  }
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }) };
}

/** What a span says, without what differs between any two spans (ids, times). */
function described(span: ReadableSpan) {
  return {
    name: span.name,
    kind: span.kind,
    parent: span.parentSpanContext?.spanId,
    traceId: span.spanContext().traceId,
    attributes: span.attributes,
    status: span.status,
    links: span.links.length,
  };
}

async function histogram(side: Side) {
  await side.otel.collect();
  return (side.otel.points('mcp.server.operation.duration') as HistogramPoint[])
    .map((point) => ({ attributes: point.attributes, count: point.value.count }))
    .sort((a, b) => JSON.stringify(a.attributes).localeCompare(JSON.stringify(b.attributes)));
}

describe.each(['modern', 'legacy'] as const)('the direct path with the plugin, %s era', (era) => {
  it.each([
    ['a text result', 'echo', { text: 'hi' }, 0],
    ['a tool that throws (an error result)', 'login', { user: 'ada', password: 'hunter2' }, 0],
    ['a result only the SDK writes (a replay), reported once', 'annotated', { text: 'a' }, 1],
  ] as const)('%s: the same span and histogram as the SDK path', async (_, name, args, sdkServers) => {
    const caller = clientSpan(sides.direct.otel.tracerProvider, 'caller');
    const answers: Record<string, string> = {};
    const spans: Record<string, ReadableSpan[]> = {};
    for (const side of ['direct', 'sdk'] as const) {
      const { otel, url } = sides[side];
      otel.exporter.reset();
      const before = connect.mock.calls.length;
      const { headers, body } = request(era, 41, name, args, caller.traceparent);
      const response = await fetch(url, { method: 'POST', headers, body });
      answers[side] = await response.text();
      expect(response.status).toBe(200);
      if (side === 'direct') expect(connect.mock.calls.length - before).toBe(sdkServers);
      spans[side] = otel.spans().filter((span) => span.kind === SpanKind.SERVER);
    }
    expect(answers.direct).toBe(answers.sdk);
    expect(spans.direct).toHaveLength(1);
    expect(spans.direct?.map(described)).toEqual(spans.sdk?.map(described));
    const [span] = spans.direct as ReadableSpan[];
    expect(span?.name).toBe(`tools/call ${name}`);
    expect(span?.parentSpanContext?.spanId).toBe(caller.span.spanContext().spanId);
    expect(span?.attributes['jsonrpc.request.id']).toBe('41');
    if (name === 'login') {
      expect(span?.attributes['error.type']).toBe('tool_error');
      expect(JSON.stringify(span?.attributes)).not.toContain('hunter2');
    }
    expect(await histogram(sides.direct)).toEqual(await histogram(sides.sdk));
  });
});

it('a 2026-07-28 call carrying its trace context in _meta stays on the direct path, parented by it', async () => {
  const caller = clientSpan(sides.direct.otel.tracerProvider, 'caller');
  const spans: Record<string, ReadableSpan[]> = {};
  for (const side of ['direct', 'sdk'] as const) {
    const { otel, url } = sides[side];
    otel.exporter.reset();
    const before = connect.mock.calls.length;
    const { headers, body } = request('modern', 43, 'echo', { text: 'traced' }, caller.traceparent);
    const { traceparent: _, ...withoutHeader } = headers;
    const call = JSON.parse(body);
    call.params._meta.traceparent = caller.traceparent;
    const response = await fetch(url, { method: 'POST', headers: withoutHeader, body: JSON.stringify(call) });
    expect(response.status).toBe(200);
    await response.text();
    if (side === 'direct') expect(connect.mock.calls.length - before).toBe(0);
    spans[side] = otel.spans().filter((span) => span.kind === SpanKind.SERVER);
  }
  expect(spans.direct?.map(described)).toEqual(spans.sdk?.map(described));
  expect(spans.direct?.[0]?.parentSpanContext?.spanId).toBe(caller.span.spanContext().spanId);
});

describe('the direct path with the plugin, inside a 2025-era session', () => {
  const sessionSides: Record<'direct' | 'sdk', Side> = {} as never;

  beforeAll(async () => {
    for (const side of ['direct', 'sdk'] as const) {
      const otel = await telemetry();
      const plugins = [
        otelPlugin({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider }),
      ];
      const server = createServer(defineServer({ name: 'otel-direct', version: '1.0.0', tools }), {
        handleSignals: false,
        logStream: { write: () => true },
        plugins: side === 'sdk' ? [...plugins, sdkOnly] : plugins,
      });
      const { url } = await server.listen(httpTransport({ port: 0, sessions: true }));
      sessionSides[side] = { otel, server, url };
    }
  });

  afterAll(async () => {
    await Promise.all(Object.values(sessionSides).map((side) => side.server.close()));
  });

  const accept = 'application/json, text/event-stream';

  /** Opens a session the way a 2025-era client does; its id. */
  async function open(url: string): Promise<string> {
    const init = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      }),
    });
    await init.text();
    const sessionId = init.headers.get('mcp-session-id');
    expect(sessionId).toBeTruthy();
    const headers = {
      'content-type': 'application/json',
      accept,
      'mcp-session-id': sessionId as string,
      'mcp-protocol-version': '2025-11-25',
    };
    const initialized = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    await initialized.text();
    return sessionId as string;
  }

  it.each([
    ['a text result', 'echo', { text: 'hi' }],
    ['a tool that throws (an error result)', 'login', { user: 'ada', password: 'hunter2' }],
  ] as const)('%s: a span in its session, as on the SDK path', async (_, name, args) => {
    const answers: Record<string, string> = {};
    const spans: Record<string, ReadableSpan[]> = {};
    const sessions: Record<string, string> = {};
    for (const side of ['direct', 'sdk'] as const) {
      const { otel, url } = sessionSides[side];
      const sessionId = await open(url);
      sessions[side] = sessionId;
      otel.exporter.reset();
      const before = connect.mock.calls.length;
      const ran = executeTool.mock.calls.length;
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept,
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name, arguments: args },
        }),
      });
      answers[side] = await response.text();
      expect(response.status).toBe(200);
      // The session's SDK server exists already: the call builds none either way.
      expect(connect.mock.calls.length - before).toBe(0);
      // …and only the SDK path hands the call to it.
      expect(executeTool.mock.calls.length - ran).toBe(side === 'direct' ? 0 : 1);
      spans[side] = otel.spans().filter((span) => span.name.startsWith('tools/call'));
    }
    expect(answers.direct).toBe(answers.sdk);
    expect(spans.direct).toHaveLength(1);
    const withoutSession = (span: ReadableSpan) => {
      // No caller trace here: each side's span starts a trace of its own.
      const { attributes, traceId: _, ...rest } = described(span);
      const { 'mcp.session.id': sessionId, ...others } = attributes;
      return { ...rest, attributes: others, session: sessionId !== undefined };
    };
    expect(spans.direct?.map(withoutSession)).toEqual(spans.sdk?.map(withoutSession));
    expect(spans.direct?.[0]?.attributes['mcp.session.id']).toBe(sessions.direct);
    expect(spans.sdk?.[0]?.attributes['mcp.session.id']).toBe(sessions.sdk);
  });
});
