// Metrics of `@pier/plugin-limits`, fed by its events (`otelPlugin({ limits })`): refusals by limit and
// reason, decisions made without the store by failure mode, and whether the store answers.
import { type Counter, type Gauge, metrics } from '@opentelemetry/api';
import { OTEL_ATTRIBUTES, OTEL_METRICS } from './conventions.js';
import type { LimitEventsSource, NormalizedOptions } from './options.js';
import type { PrometheusRegistry } from './prometheus.js';
import { SCOPE, SCOPE_VERSION } from './telemetry.js';

/** One event of the limits plugin, as this plugin reads it. */
export type LimitEventLike = Parameters<Parameters<LimitEventsSource['onEvent']>[0]>[0];

/** Records limit events into the OpenTelemetry instruments and, when `/metrics` is on, the registry. */
export function limitMetrics(
  options: NormalizedOptions,
  registry: PrometheusRegistry | undefined,
): (event: LimitEventLike) => void {
  let refusals: Counter | undefined;
  let storeErrors: Counter | undefined;
  let available: Gauge | undefined;
  if (options.metrics) {
    const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE, SCOPE_VERSION);
    refusals = meter.createCounter(OTEL_METRICS.limitRefusals.name, OTEL_METRICS.limitRefusals);
    storeErrors = meter.createCounter(OTEL_METRICS.limitStoreErrors.name, OTEL_METRICS.limitStoreErrors);
    available = meter.createGauge(OTEL_METRICS.limitStoreAvailable.name, OTEL_METRICS.limitStoreAvailable);
  }
  const prom = registry && {
    refusals: registry.counter(OTEL_METRICS.limitRefusals.name, OTEL_METRICS.limitRefusals.description),
    storeErrors: registry.counter(
      OTEL_METRICS.limitStoreErrors.name,
      OTEL_METRICS.limitStoreErrors.description,
    ),
    available: registry.settable(
      OTEL_METRICS.limitStoreAvailable.name,
      OTEL_METRICS.limitStoreAvailable.unit,
      OTEL_METRICS.limitStoreAvailable.description,
    ),
  };
  // Reported from the start: a dashboard sees 1 before the first outage, not nothing.
  available?.record(1);
  prom?.available(1, {});
  return (event) => {
    if (event.type === 'refused') {
      const attributes = {
        [OTEL_ATTRIBUTES.pierLimitRule]: event.rule,
        [OTEL_ATTRIBUTES.pierLimitReason]: event.reason,
      };
      refusals?.add(1, attributes);
      prom?.refusals(1, attributes);
    } else if (event.type === 'store-error') {
      const attributes = {
        [OTEL_ATTRIBUTES.pierLimitRule]: event.rule,
        [OTEL_ATTRIBUTES.pierLimitFailureMode]: event.mode,
      };
      storeErrors?.add(1, attributes);
      prom?.storeErrors(1, attributes);
    } else if (event.type === 'store') {
      available?.record(event.available ? 1 : 0);
      prom?.available(event.available ? 1 : 0, {});
    }
  };
}
