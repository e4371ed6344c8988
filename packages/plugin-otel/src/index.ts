export { ATTR as OTEL_ATTRIBUTES, DURATION_BUCKETS, METRIC as OTEL_METRICS } from './conventions.js';
export {
  type HealthResultsSource,
  type LimitEventsSource,
  OtelPluginError,
  type OtelPluginErrorCode,
  type OtelPluginOptions,
  type PrometheusRouteOptions,
} from './options.js';
export { otelPlugin } from './plugin.js';
