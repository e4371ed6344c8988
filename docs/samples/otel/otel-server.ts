// The OpenTelemetry SDK you already use, registered before createServer; the plugin names and attributes
// spans and metrics by the MCP semantic conventions, and serves /metrics for Prometheus.
import { context, metrics, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createServer, defineServer, defineTool } from '@pier/core';
import { otelPlugin } from '@pier/plugin-otel';
import { connect } from '@pier/testing';
import { httpTransport } from '@pier/transport-http';
import { z } from 'zod';

// 1. The SDK (here an in-memory exporter, to print the spans; in production an OTLP exporter).
const spans = new InMemorySpanExporter();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(
  new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
);
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
metrics.setGlobalMeterProvider(new MeterProvider());

// 2. The plugin.
const forecast = defineTool({
  name: 'forecast',
  input: { city: z.string() },
  handler: ({ city }) => `Sunny in ${city}`,
});
const server = createServer(
  defineServer({
    name: 'weather',
    version: '1.0.0',
    tools: [forecast],
    plugins: [otelPlugin({ prometheus: true })],
  }),
  { logLevel: 'warn', handleSignals: false },
);
const { url } = await server.listen(httpTransport({ port: 0 }));

const { client, close } = await connect(url);
await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
await close();

for (const span of spans.getFinishedSpans().filter((s) => s.name.startsWith('tools/call'))) {
  console.log(span.name, SpanKind[span.kind], span.attributes);
}
const scrape = await (await fetch(new URL('/metrics', url))).text();
console.log(
  scrape.split('\n').filter((line) => line.startsWith('mcp_server_operation_duration_seconds_count')),
);
await server.close();
