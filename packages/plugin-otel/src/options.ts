// otelPlugin() options: what a user may set, and their validation (at the call, not on the first request).
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { OptionIssues, PierError, type PierErrorOptions } from '@pier/core';

/** Options of {@link otelPlugin}. Everything is optional: `otelPlugin()` traces and measures with the global providers. */
export interface OtelPluginOptions {
  /** Where spans go. Default: the global tracer provider (`trace.getTracerProvider()`), resolved per span. */
  readonly tracerProvider?: TracerProvider;
  /** Where metrics go. Default: the global meter provider (`metrics.getMeterProvider()`), resolved at setup. */
  readonly meterProvider?: MeterProvider;
  /** `false` turns spans off (metrics stay). Default `true`. */
  readonly traces?: boolean;
  /** `false` turns the OpenTelemetry metrics off (the `/metrics` route still counts if enabled). Default `true`. */
  readonly metrics?: boolean;
  /**
   * Tools whose arguments are recorded on their span as `gen_ai.tool.call.arguments` (a JSON string): per
   * tool, the argument names to record. Nothing is recorded for a tool not listed, nor for an argument not
   * named. Never list a secret.
   */
  readonly recordArguments?: Readonly<Record<string, readonly string[]>>;
  /** Adds `mcp.resource.uri` to the duration metric (opt-in: a URI per series can be unbounded). Default `false`. */
  readonly resourceUriInMetrics?: boolean;
  /** Serves the plugin's metrics in Prometheus text format over HTTP. Off by default. */
  readonly prometheus?: boolean | PrometheusRouteOptions;
  /**
   * Reports the results of these health checks as `pier.health.check.status` (one series per check and
   * status): pass the `healthPlugin(…)` you install. Each probe that runs the checks updates the gauge.
   */
  readonly health?: HealthResultsSource;
  /**
   * Counts what these limits decide (`pier.limit.refusals`, `pier.limit.store.errors`,
   * `pier.limit.store.available`): pass the `limitsPlugin(…)` you install.
   */
  readonly limits?: LimitEventsSource;
}

/**
 * Where limit decisions come from: what `limitsPlugin()` of `@pier/plugin-limits` returns (this plugin does
 * not depend on it; anything with this method works).
 */
export interface LimitEventsSource {
  onEvent(
    listener: (
      event:
        | { readonly type: 'refused'; readonly rule: string; readonly reason: string }
        | { readonly type: 'store-error'; readonly rule: string; readonly mode: string }
        | { readonly type: 'store'; readonly available: boolean },
    ) => void,
  ): () => void;
}

/**
 * Where health check results come from: what `healthPlugin()` of `@pier/plugin-health` returns (this
 * plugin does not depend on it; anything with this method works).
 */
export interface HealthResultsSource {
  onEvaluation(
    listener: (evaluation: {
      readonly checks: readonly { readonly name: string; readonly status: string }[];
    }) => void,
  ): () => void;
}

/** The optional `/metrics` route. */
export interface PrometheusRouteOptions {
  /** Default `/metrics`. */
  readonly path?: string;
  /**
   * Decides whether a scrape may read the metrics (a bearer token, a network check…). Refused scrapes get
   * 401 (or the status you return). Default: every scrape is served.
   */
  readonly authorize?: (request: Request) => boolean | number | Promise<boolean | number>;
}

/** Codes of {@link OtelPluginError}. */
export type OtelPluginErrorCode = 'OTEL_OPTIONS_INVALID';

/**
 * The one error class of `@pier/plugin-otel` (a `PierError`): `otelPlugin()` throws it for options it cannot
 * use, with `issues` listing every problem; branch on `code`.
 */
export class OtelPluginError extends PierError<OtelPluginErrorCode> {
  override readonly name = 'OtelPluginError';

  constructor(code: OtelPluginErrorCode, message: string, options?: PierErrorOptions) {
    super(code, message, options);
  }
}

const optionsError = (message: string, issues: readonly string[]): OtelPluginError =>
  new OtelPluginError('OTEL_OPTIONS_INVALID', message, { issues });

export interface NormalizedOptions {
  readonly tracerProvider: TracerProvider | undefined;
  readonly meterProvider: MeterProvider | undefined;
  readonly traces: boolean;
  readonly metrics: boolean;
  readonly recordArguments: ReadonlyMap<string, readonly string[]>;
  readonly resourceUriInMetrics: boolean;
  readonly prometheus:
    | { readonly path: string; readonly authorize: PrometheusRouteOptions['authorize'] }
    | undefined;
  readonly health: HealthResultsSource | undefined;
  readonly limits: LimitEventsSource | undefined;
}

export function normalizeOptions(options: OtelPluginOptions = {}): NormalizedOptions {
  const problems = new OptionIssues('otelPlugin');
  if (typeof options !== 'object' || options === null) {
    problems.expect('options', 'an object', options);
    return problems.throwNow(optionsError);
  }
  const {
    tracerProvider,
    meterProvider,
    traces,
    metrics,
    recordArguments,
    resourceUriInMetrics,
    prometheus,
    health,
    limits,
  } = options;
  if (limits !== undefined && typeof limits?.onEvent !== 'function') {
    problems.add('limits must have onEvent() (pass the limitsPlugin(…) you install)');
  }
  if (health !== undefined && typeof health?.onEvaluation !== 'function') {
    problems.add('health must have onEvaluation() (pass the healthPlugin(…) you install)');
  }
  if (tracerProvider !== undefined && typeof tracerProvider?.getTracer !== 'function') {
    problems.add('tracerProvider must have getTracer()');
  }
  if (meterProvider !== undefined && typeof meterProvider?.getMeter !== 'function') {
    problems.add('meterProvider must have getMeter()');
  }
  for (const [name, value] of [
    ['traces', traces],
    ['metrics', metrics],
    ['resourceUriInMetrics', resourceUriInMetrics],
  ] as const) {
    if (value !== undefined && typeof value !== 'boolean') problems.add(`${name} must be a boolean`);
  }
  const recorded = new Map<string, readonly string[]>();
  if (recordArguments !== undefined) {
    if (typeof recordArguments !== 'object' || recordArguments === null) {
      problems.add('recordArguments must be an object { toolName: [argumentName, …] }');
    } else {
      for (const [tool, names] of Object.entries(recordArguments)) {
        if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) {
          problems.add(`recordArguments["${tool}"] must be a list of argument names`);
        } else {
          recorded.set(tool, [...names]);
        }
      }
    }
  }
  let route: NormalizedOptions['prometheus'];
  if (prometheus === true) route = { path: '/metrics', authorize: undefined };
  else if (prometheus !== undefined && prometheus !== false) {
    if (typeof prometheus !== 'object' || prometheus === null) {
      problems.add('prometheus must be a boolean or { path?, authorize? }');
    } else {
      const path = prometheus.path ?? '/metrics';
      if (typeof path !== 'string' || !path.startsWith('/'))
        problems.add('prometheus.path must start with "/"');
      if (prometheus.authorize !== undefined && typeof prometheus.authorize !== 'function') {
        problems.add('prometheus.authorize must be a function');
      }
      route = { path, authorize: prometheus.authorize };
    }
  }
  problems.throwIfAny(optionsError);
  return {
    tracerProvider,
    meterProvider,
    traces: traces ?? true,
    metrics: metrics ?? true,
    recordArguments: recorded,
    resourceUriInMetrics: resourceUriInMetrics ?? false,
    prometheus: route,
    health,
    limits,
  };
}
