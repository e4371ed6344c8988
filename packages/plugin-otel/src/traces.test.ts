// Spans by OpenTelemetry's MCP conventions, asserted through the real SDK's in-memory exporter, with the
// official SDK client over real HTTP in both eras: parent from `params._meta` or the `traceparent` header,
// names and attributes, error status, nothing recorded of an argument nobody opted into.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { otelPlugin } from './index.js';
import {
  clientSpan,
  closeAll,
  connect,
  type Era,
  listen,
  named,
  seenInHandler,
  telemetry,
} from './test-otel.js';

afterEach(closeAll);

const VERSION: Record<Era, string> = { modern: '2026-07-28', legacy: '2025-11-25' };

describe.each(['modern', 'legacy'] as const)('spans over HTTP, %s era', (era) => {
  it.each([false, true])(
    'a tools/call is a SERVER span, child of the client’s span carried in params._meta (sessions: %s)',
    async (sessions) => {
      if (era === 'modern' && sessions) return; // 2026-07-28 has no sessions: the stateless run covers it.
      const otel = await telemetry();
      const url = await listen([otelPlugin({ tracerProvider: otel.tracerProvider })], sessions);
      const { client, transport } = await connect(url, era);
      const caller = clientSpan(otel.tracerProvider, 'tools/call echo', 'tenant=acme');
      seenInHandler.length = 0;
      await client.callTool({ name: 'echo', arguments: { text: 'hi' }, _meta: caller.meta });

      const [span, ...more] = named(otel.spans(), 'tools/call echo').filter(
        (s) => s.kind === SpanKind.SERVER,
      );
      expect(more).toEqual([]);
      expect(span?.spanContext().traceId).toBe(caller.span.spanContext().traceId);
      expect(span?.parentSpanContext?.spanId).toBe(caller.span.spanContext().spanId);
      expect(span?.status.code).toBe(SpanStatusCode.UNSET);
      expect(span?.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': VERSION[era],
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
      });
      expect(span?.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
      expect(span?.attributes['error.type']).toBeUndefined();
      if (sessions) expect(span?.attributes['mcp.session.id']).toBe(transport.sessionId);
      else expect(span?.attributes['mcp.session.id']).toBeUndefined();
      // The handler runs inside the span, with the caller's baggage.
      expect(seenInHandler).toEqual([
        { traceId: caller.span.spanContext().traceId, spanId: span?.spanContext().spanId, baggage: 'acme' },
      ]);
    },
  );

  it('takes the parent from the traceparent header when _meta has none, and links it when both differ', async () => {
    const otel = await telemetry();
    const header = clientSpan(otel.tracerProvider, 'http client');
    const url = await listen([otelPlugin({ tracerProvider: otel.tracerProvider })]);
    const { client } = await connect(url, era, { headers: { traceparent: header.traceparent } });
    await client.callTool({ name: 'echo', arguments: { text: 'a' } });
    const meta = clientSpan(otel.tracerProvider, 'mcp client');
    await client.callTool({ name: 'echo', arguments: { text: 'b' }, _meta: meta.meta });

    const [byHeader, byMeta] = named(otel.spans(), 'tools/call echo');
    expect(byHeader?.parentSpanContext?.spanId).toBe(header.span.spanContext().spanId);
    expect(byHeader?.links).toEqual([]);
    expect(byMeta?.parentSpanContext?.spanId).toBe(meta.span.spanContext().spanId);
    expect(byMeta?.links.map((link) => link.context.spanId)).toEqual([header.span.spanContext().spanId]);
  });

  it('a tool that throws sets error.type tool_error and the ERROR status, and records no argument', async () => {
    const otel = await telemetry();
    const url = await listen([otelPlugin({ tracerProvider: otel.tracerProvider })]);
    const { client } = await connect(url, era);
    const answer = await client.callTool({ name: 'login', arguments: { user: 'ada', password: 'hunter2' } });
    expect(answer.isError).toBe(true);
    // Invalid arguments: a JSON-RPC -32602 or an isError result, depending on the SDK; neither leaks.
    await client
      .callTool({ name: 'login', arguments: { user: 'ada', password: 12345678 } })
      .catch(() => undefined);

    const spans = otel.spans();
    const [failed, invalid] = named(spans, 'tools/call login');
    expect(failed?.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(failed?.attributes['error.type']).toBe('tool_error');
    expect(invalid?.status.code).toBe(SpanStatusCode.ERROR);
    expect(
      JSON.stringify(
        spans.map(({ attributes, status, events, name }) => ({ attributes, status, events, name })),
      ),
    ).not.toMatch(/hunter2|12345678/);
  });

  it('records the arguments a user opted into for a tool, and only those', async () => {
    const otel = await telemetry();
    const url = await listen([
      otelPlugin({ tracerProvider: otel.tracerProvider, recordArguments: { login: ['user'] } }),
    ]);
    const { client } = await connect(url, era);
    await client.callTool({ name: 'login', arguments: { user: 'ada', password: 'hunter2' } });
    await client.callTool({ name: 'echo', arguments: { text: 'not recorded' } });
    const [login] = named(otel.spans(), 'tools/call login');
    const [echo] = named(otel.spans(), 'tools/call echo');
    expect(login?.attributes['gen_ai.tool.call.arguments']).toBe('{"user":"ada"}');
    expect(echo?.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
  });

  it('names prompts by their name, and keeps an unknown tool’s name out of the span name', async () => {
    const otel = await telemetry();
    const url = await listen([otelPlugin({ tracerProvider: otel.tracerProvider })]);
    const { client } = await connect(url, era);
    await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
    const unknown = await client.callTool({ name: 'no-such-tool-7f3a', arguments: {} }).then(
      (result) => result.isError,
      () => 'rejected',
    );
    expect(unknown).toBeTruthy();
    await client.listTools();
    const spans = otel.spans();
    expect(named(spans, 'prompts/get greet')[0]?.attributes).toMatchObject({
      'mcp.method.name': 'prompts/get',
      'gen_ai.prompt.name': 'greet',
    });
    const [failed] = spans.filter((span) => span.attributes['gen_ai.tool.name'] === 'no-such-tool-7f3a');
    expect(failed?.name).toBe('tools/call');
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
    expect(named(spans, 'tools/list')).toHaveLength(1);
  });
});

describe('spans for what a 2025 session adds', () => {
  it('notifications/initialized is a span, and an elicitation is a CLIENT span under the tool’s span', async () => {
    const otel = await telemetry();
    const url = await listen([otelPlugin({ tracerProvider: otel.tracerProvider })], true);
    const { client, transport } = await connect(url, 'legacy', { elicitation: true });
    expect(await client.callTool({ name: 'ask', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'accept' }],
    });
    const spans = otel.spans();
    const [initialized] = named(spans, 'notifications/initialized');
    expect(initialized?.kind).toBe(SpanKind.SERVER);
    expect(initialized?.attributes).toMatchObject({
      'mcp.method.name': 'notifications/initialized',
      'mcp.session.id': transport.sessionId,
    });
    const [tool] = named(spans, 'tools/call ask');
    const [asked] = named(spans, 'elicitation/create');
    expect(asked?.kind).toBe(SpanKind.CLIENT);
    expect(asked?.parentSpanContext?.spanId).toBe(tool?.spanContext().spanId);
    expect(asked?.attributes).toMatchObject({
      'mcp.method.name': 'elicitation/create',
      'mcp.session.id': transport.sessionId,
      'mcp.protocol.version': '2025-11-25',
    });
    const [initialize] = named(spans, 'initialize');
    expect(initialize?.attributes['mcp.protocol.version']).toBe('2025-11-25');
  });

  it('on 2026-07-28 an elicitation is an input_required round: one span per round, the question named', async () => {
    const otel = await telemetry();
    const url = await listen([otelPlugin({ tracerProvider: otel.tracerProvider })]);
    const { client } = await connect(url, 'modern', { elicitation: true });
    expect(await client.callTool({ name: 'ask', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'accept' }],
    });
    const rounds = named(otel.spans(), 'tools/call ask');
    expect(rounds).toHaveLength(2);
    expect(rounds[0]?.attributes['pier.mcp.input_required.methods']).toEqual(['elicitation/create']);
    expect(rounds[1]?.attributes['pier.mcp.input_required.methods']).toBeUndefined();
  });
});

describe('off switches', () => {
  it('traces: false records no span', async () => {
    const otel = await telemetry();
    const url = await listen([otelPlugin({ tracerProvider: otel.tracerProvider, traces: false })]);
    const { client } = await connect(url, 'modern');
    await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(otel.spans()).toEqual([]);
  });
});
