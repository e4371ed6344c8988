export { DURATION_BUCKETS, OTEL_ATTRIBUTES, OTEL_METRICS } from './conventions.js';
export {
  type HealthResultsSource,
  type LimitEventsSource,
  OtelPluginError,
  type OtelPluginErrorCode,
  type OtelPluginOptions,
  type PrometheusRouteOptions,
} from './options.js';
export { otelPlugin } from './plugin.js';
