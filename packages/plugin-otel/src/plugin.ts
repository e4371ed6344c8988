// otelPlugin(): the observer on every SDK server Pier builds, and the optional Prometheus route.
import type { PierPlugin, PluginContext } from '@pier/core';
import { limitMetrics } from './limits.js';
import { normalizeOptions, type OtelPluginOptions } from './options.js';
import { PROMETHEUS_CONTENT_TYPE, PrometheusRegistry } from './prometheus.js';
import { createObserver } from './telemetry.js';

/**
 * Traces and metrics for every MCP request, notification and session of a Pier server, named and
 * attributed by OpenTelemetry's MCP semantic conventions. Needs only `@opentelemetry/api`: register the
 * OpenTelemetry SDK (and its exporters) you already use, before `createServer`. With none registered it
 * records nothing and costs next to nothing.
 *
 * @example
 * ```ts
 * createServer(MyServer, config, { plugins: [otelPlugin({ prometheus: true })] });
 * ```
 * @throws {OtelPluginError} `OTEL_OPTIONS_INVALID` when an option cannot be used.
 */
export function otelPlugin(options: OtelPluginOptions = {}): PierPlugin {
  const normalized = normalizeOptions(options);
  return {
    name: 'otel',
    setup(ctx: PluginContext) {
      const registry = normalized.prometheus === undefined ? undefined : new PrometheusRegistry();
      const telemetry = createObserver(normalized, registry);
      ctx.observe(telemetry);
      const unsubscribe = normalized.health?.onEvaluation((evaluation) => telemetry.health(evaluation));
      const limitsOff =
        normalized.limits === undefined
          ? undefined
          : normalized.limits.onEvent(limitMetrics(normalized, registry));
      ctx.onClose(() => {
        unsubscribe?.();
        limitsOff?.();
        telemetry.close();
      });
      if (registry === undefined || normalized.prometheus === undefined) return;
      const { path, authorize } = normalized.prometheus;
      const logger = ctx.logger;
      ctx.addRoute({
        method: 'GET',
        path,
        handler: async (request: Request) => {
          if (authorize !== undefined) {
            let verdict: boolean | number;
            try {
              verdict = await authorize(request);
            } catch (error) {
              logger.warn('the /metrics authorize hook failed', {
                error: error instanceof Error ? error.message : String(error),
              });
              verdict = 500;
            }
            if (verdict !== true) {
              return new Response(null, {
                status: typeof verdict === 'number' ? verdict : 401,
                headers: { 'cache-control': 'no-store' },
              });
            }
          }
          return new Response(request.method === 'HEAD' ? null : registry.render(), {
            headers: { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' },
          });
        },
      });
    },
  };
}
