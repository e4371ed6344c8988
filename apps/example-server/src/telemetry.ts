// OpenTelemetry for the app: @pier/plugin-otel always (it costs next to nothing without an SDK), its
// /metrics route when METRICS=true, and the SDK with OTLP/HTTP exporters when OTEL_EXPORTER_OTLP_ENDPOINT
// is set — loaded only then, so an app that does not push never loads the SDK.
import type { PierPlugin } from '@pier/core';
import { type LimitEventsSource, otelPlugin } from '@pier/plugin-otel';
import type { AppConfig } from './config.js';
import { SERVER_NAME, SERVER_VERSION } from './settings.js';

/** How often metrics are pushed over OTLP. */
export const OTLP_METRICS_INTERVAL_MS = 10_000;

/** The plugin, with `/metrics` served when `METRICS=true`, counting what `limits` decide. */
export function telemetryPlugin(config: Pick<AppConfig, 'metrics'>, limits?: LimitEventsSource): PierPlugin {
  return otelPlugin({ prometheus: config.metrics, ...(limits !== undefined && { limits }) });
}

/**
 * Registers the OpenTelemetry SDK globally with OTLP/HTTP exporters to `endpoint` (`/v1/traces`,
 * `/v1/metrics`), and the W3C propagators that read a caller's `traceparent`. Resolves with the function
 * that flushes and stops it.
 */
export async function startOtlp(endpoint: string): Promise<{ shutdown(): Promise<void> }> {
  const [api, hooks, core, resources, traceBase, sdkMetrics, traceExporter, metricExporter] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/sdk-metrics'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/exporter-metrics-otlp-http'),
    ]);
  const base = endpoint.replace(/\/+$/, '');
  const resource = resources.resourceFromAttributes({
    'service.name': SERVER_NAME,
    'service.version': SERVER_VERSION,
  });
  const tracerProvider = new traceBase.BasicTracerProvider({
    resource,
    spanProcessors: [
      new traceBase.BatchSpanProcessor(new traceExporter.OTLPTraceExporter({ url: `${base}/v1/traces` })),
    ],
  });
  const meterProvider = new sdkMetrics.MeterProvider({
    resource,
    readers: [
      new sdkMetrics.PeriodicExportingMetricReader({
        exporter: new metricExporter.OTLPMetricExporter({ url: `${base}/v1/metrics` }),
        exportIntervalMillis: OTLP_METRICS_INTERVAL_MS,
      }),
    ],
  });
  api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(
    new core.CompositePropagator({
      propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()],
    }),
  );
  api.trace.setGlobalTracerProvider(tracerProvider);
  api.metrics.setGlobalMeterProvider(meterProvider);
  return {
    async shutdown() {
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
