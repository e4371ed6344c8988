// The OpenTelemetry SDK as an application registers it, exporting nowhere: what `pier-otel-sdk` measures is
// the cost of recording (spans built and ended through a batch processor, histograms aggregated), not of
// shipping them. Spans go through a `BatchSpanProcessor`, as with `NodeSDK` and every OTLP setup;
// `BENCH_OTEL_SPANS=simple` uses a `SimpleSpanProcessor` instead (not cheaper: see PROFILE.md, issue 20);
// `BENCH_OTEL_CONTEXT=none` registers no context manager.
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  type ExportResult,
  ExportResultCode,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

const done = (callback: (result: ExportResult) => void) => callback({ code: ExportResultCode.SUCCESS });

export async function registerNoopSdk(): Promise<void> {
  const spans: SpanExporter = { export: (_spans, callback) => done(callback), shutdown: async () => {} };
  const measurements: PushMetricExporter = {
    export: (_metrics, callback) => done(callback),
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  // `BENCH_OTEL_CONTEXT=none`: no context manager (spans are not parents of what a handler starts): what
  // `AsyncLocalStorage` costs on top (on Node 20 its async hook runs for every promise the process makes).
  if (process.env.BENCH_OTEL_CONTEXT !== 'none') {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  }
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  const processor =
    process.env.BENCH_OTEL_SPANS === 'simple'
      ? new SimpleSpanProcessor(spans)
      : new BatchSpanProcessor(spans);
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [processor] }));
  metrics.setGlobalMeterProvider(
    new MeterProvider({
      readers: [new PeriodicExportingMetricReader({ exporter: measurements, exportIntervalMillis: 5_000 })],
    }),
  );
}
