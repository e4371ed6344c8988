// `BENCH_OTEL=sdk-floor` (`pier-otel-floor`): the least any instrumentation of a call can record with the
// OpenTelemetry SDK, inside a server — what `@pier/plugin-otel` records per tools/call, with nothing of
// Pier's own: one SERVER span with the plugin's seven attributes, made active around the handler, ended;
// one histogram record with a constant, frozen attribute set. No header read, no vocabulary, no outcome
// inspection. `BENCH_OTEL_FLOOR` (a comma list of `span`, `with`, `record`; all three by default) keeps only
// some parts, to split the floor. Against `pier-sdk`: the SDK's floor; against `pier-otel-sdk`: what the
// plugin adds on top of it.
import { context, metrics, SpanKind, trace } from '@opentelemetry/api';
import type { PierPlugin } from '@pier/core';

const SPAN_NAME = 'tools/call echo';
const METRIC_ATTRIBUTES = Object.freeze({
  'mcp.method.name': 'tools/call',
  'network.transport': 'tcp',
  'network.protocol.name': 'http',
  'mcp.protocol.version': '2026-07-28',
  'gen_ai.tool.name': 'echo',
  'gen_ai.operation.name': 'execute_tool',
});

export function floorPlugin(): PierPlugin {
  const parts = new Set((process.env.BENCH_OTEL_FLOOR ?? 'span,with,record').split(','));
  const spans = parts.has('span');
  const active = parts.has('with');
  const records = parts.has('record');
  return {
    name: 'otel-floor',
    setup(ctx) {
      const tracer = trace.getTracer('otel-floor');
      const histogram = metrics
        .getMeter('otel-floor')
        .createHistogram('mcp.server.operation.duration', { unit: 's' });
      ctx.observe({
        onRequest(request, dispatch) {
          const started = performance.now();
          const span = spans
            ? tracer.startSpan(SPAN_NAME, {
                kind: SpanKind.SERVER,
                attributes: {
                  'mcp.method.name': 'tools/call',
                  'jsonrpc.request.id': String(request.id),
                  'network.transport': 'tcp',
                  'network.protocol.name': 'http',
                  'mcp.protocol.version': '2026-07-28',
                  'gen_ai.tool.name': 'echo',
                  'gen_ai.operation.name': 'execute_tool',
                },
              })
            : undefined;
          if (active) {
            const current = context.active();
            context.with(span === undefined ? current : trace.setSpan(current, span), dispatch);
          } else {
            dispatch();
          }
          return () => {
            if (records) histogram.record((performance.now() - started) / 1000, METRIC_ATTRIBUTES);
            span?.end();
          };
        },
      });
    },
  };
}
