// Metrics through the real OpenTelemetry SDK's MetricReader: the two duration histograms with the
// conventions' attributes and buckets, the active gauges, and cardinality bounded whatever a client sends.
import { afterEach, describe, expect, it } from 'vitest';
import { DURATION_BUCKETS, otelPlugin } from './index.js';
import { closeAll, connect, type HistogramPoint, listen, telemetry } from './test-otel.js';

afterEach(closeAll);

describe('mcp.server.operation.duration', () => {
  it('is a histogram in seconds, one series per method, tool and outcome — never per id or argument', async () => {
    const otel = await telemetry();
    const url = await listen([otelPlugin({ meterProvider: otel.meterProvider, traces: false })]);
    const { client } = await connect(url, 'modern');
    for (const text of ['a', 'b', 'c']) await client.callTool({ name: 'echo', arguments: { text } });
    await client.callTool({ name: 'login', arguments: { user: 'u', password: 'p' } });
    for (const name of ['nope-1', 'nope-2', 'nope-3']) {
      await client.callTool({ name, arguments: {} }).catch(() => undefined);
    }
    await otel.collect();
    const points = otel.points('mcp.server.operation.duration') as HistogramPoint[];
    const calls = points.filter((point) => point.attributes['mcp.method.name'] === 'tools/call');
    const byTool = Object.fromEntries(
      calls.map((point) => [
        `${point.attributes['gen_ai.tool.name']}|${point.attributes['error.type'] ?? ''}`,
        point.value.count,
      ]),
    );
    // Unknown tool names are the client's strings: they collapse into _OTHER.
    expect(byTool).toEqual({ 'echo|': 3, 'login|tool_error': 1, '_OTHER|-32602': 3 });
    const echo = calls.find((point) => point.attributes['gen_ai.tool.name'] === 'echo');
    expect(echo?.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    });
    expect(echo?.value.buckets.boundaries).toEqual(DURATION_BUCKETS);
    expect(echo?.value.sum).toBeGreaterThan(0);
    expect(echo?.value.sum).toBeLessThan(60);
    const unknown = calls.find((point) => point.attributes['gen_ai.tool.name'] === '_OTHER');
    expect(unknown?.attributes['rpc.response.status_code']).toBe('-32602');
    for (const point of points) {
      expect(Object.keys(point.attributes)).not.toContain('jsonrpc.request.id');
      expect(Object.keys(point.attributes)).not.toContain('mcp.session.id');
    }
  });

  it.each([false, true])(
    'keeps resource URIs out unless opted in (resourceUriInMetrics: %s)',
    async (optIn) => {
      const otel = await telemetry();
      const url = await listen([
        otelPlugin({ meterProvider: otel.meterProvider, traces: false, resourceUriInMetrics: optIn }),
      ]);
      const { client } = await connect(url, 'legacy');
      await client.readResource({ uri: 'app://status' });
      await otel.collect();
      const points = otel.points('mcp.server.operation.duration');
      const reads = points.filter((point) => point.attributes['mcp.method.name'] === 'resources/read');
      expect(reads).toHaveLength(1);
      expect(reads[0]?.attributes['mcp.resource.uri']).toBe(optIn ? 'app://status' : undefined);
    },
  );
});

describe('sessions', () => {
  it('a 2025 HTTP session is counted while open and measured once it ends', async () => {
    const otel = await telemetry();
    const url = await listen([otelPlugin({ meterProvider: otel.meterProvider, traces: false })], true);
    const { client, transport } = await connect(url, 'legacy');
    await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    await otel.collect();
    const open = otel.points('pier.server.active_sessions');
    expect(open.map((point) => [point.attributes, point.value])).toEqual([
      [{ 'network.transport': 'tcp', 'network.protocol.name': 'http' }, 1],
    ]);
    expect(otel.points('mcp.server.session.duration')).toEqual([]);

    await transport.terminateSession();
    await otel.collect();
    expect(otel.points('pier.server.active_sessions').map((point) => point.value)).toEqual([0]);
    const [ended, ...more] = otel.points('mcp.server.session.duration') as HistogramPoint[];
    expect(more).toEqual([]);
    expect(ended?.value.count).toBe(1);
    expect(ended?.attributes).toEqual({
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'mcp.protocol.version': '2025-11-25',
    });
  });

  it('stateless HTTP opens no session, and no request stays counted as active', async () => {
    const otel = await telemetry();
    const url = await listen([otelPlugin({ meterProvider: otel.meterProvider, traces: false })]);
    const { client } = await connect(url, 'legacy');
    await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    await otel.collect();
    expect(otel.points('pier.server.active_sessions')).toEqual([]);
    expect(otel.points('pier.server.active_requests').map((point) => point.value)).toEqual([0]);
  });
});

describe('metrics: false', () => {
  it('creates no instrument', async () => {
    const otel = await telemetry();
    const url = await listen([otelPlugin({ meterProvider: otel.meterProvider, metrics: false })]);
    const { client } = await connect(url, 'modern');
    await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    const collected = await otel.collect();
    expect(collected.scopeMetrics.flatMap((scope) => scope.metrics)).toEqual([]);
  });
});
