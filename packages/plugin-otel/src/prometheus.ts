// The `/metrics` exposition: the plugin's own instruments aggregated in memory and written in Prometheus'
// text format (0.0.4). The OpenTelemetry API cannot read metrics back (only an SDK can), and the runtime
// depends on the API only, so the plugin keeps these few series itself — named as OpenTelemetry's
// Prometheus exporter would name them, so a dashboard works with either.
import type { Attributes } from '@opentelemetry/api';

/** `Content-Type` of the text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

interface Series<T> {
  readonly labels: string;
  value: T;
}

interface HistogramValue {
  readonly counts: number[];
  sum: number;
  count: number;
}

interface Family {
  readonly name: string;
  readonly help: string;
  render(lines: string[]): void;
}

/** Prometheus histograms and gauges keyed by their attributes, rendered on demand. */
export class PrometheusRegistry {
  readonly #families: Family[] = [];

  /** A histogram; `unit` `s` adds the `_seconds` suffix, as OpenTelemetry's exporter does. */
  histogram(
    otelName: string,
    unit: string,
    help: string,
    buckets: readonly number[],
  ): (value: number, attributes: Attributes) => void {
    const name = prometheusName(otelName, unit);
    const series = new Map<string, Series<HistogramValue>>();
    this.#families.push({
      name,
      help,
      render(lines) {
        lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} histogram`);
        for (const { labels, value } of series.values()) {
          let cumulative = 0;
          buckets.forEach((bound, index) => {
            cumulative += value.counts[index] ?? 0;
            lines.push(`${name}_bucket${withLabel(labels, `le="${formatNumber(bound)}"`)} ${cumulative}`);
          });
          lines.push(`${name}_bucket${withLabel(labels, 'le="+Inf"')} ${value.count}`);
          lines.push(`${name}_sum${braces(labels)} ${formatNumber(value.sum)}`);
          lines.push(`${name}_count${braces(labels)} ${value.count}`);
        }
      },
    });
    return (value, attributes) => {
      const labels = labelsOf(attributes);
      let entry = series.get(labels);
      if (entry === undefined) {
        entry = { labels, value: { counts: new Array(buckets.length).fill(0), sum: 0, count: 0 } };
        series.set(labels, entry);
      }
      const index = buckets.findIndex((bound) => value <= bound);
      if (index >= 0) entry.value.counts[index] = (entry.value.counts[index] ?? 0) + 1;
      entry.value.sum += value;
      entry.value.count += 1;
    };
  }

  /** A gauge family, rendered with its series by label set; the series map is the caller's to fill. */
  #gaugeFamily(otelName: string, unit: string, help: string): Map<string, Series<number>> {
    const name = prometheusName(otelName, unit);
    const series = new Map<string, Series<number>>();
    this.#families.push({
      name,
      help,
      render(lines) {
        lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} gauge`);
        for (const { labels, value } of series.values()) lines.push(`${name}${braces(labels)} ${value}`);
      },
    });
    return series;
  }

  /** A gauge fed by increments (an OpenTelemetry UpDownCounter). */
  gauge(otelName: string, unit: string, help: string): (delta: number, attributes: Attributes) => void {
    const series = this.#gaugeFamily(otelName, unit, help);
    return (delta, attributes) => {
      const labels = labelsOf(attributes);
      const entry = series.get(labels);
      if (entry === undefined) series.set(labels, { labels, value: delta });
      else entry.value += delta;
    };
  }

  /** A gauge set to a value (an OpenTelemetry Gauge): the last value per attribute set. */
  settable(otelName: string, unit: string, help: string): (value: number, attributes: Attributes) => void {
    const series = this.#gaugeFamily(otelName, unit, help);
    return (value, attributes) => {
      const labels = labelsOf(attributes);
      const entry = series.get(labels);
      if (entry === undefined) series.set(labels, { labels, value });
      else entry.value = value;
    };
  }

  /** A monotonic counter (an OpenTelemetry Counter): `_total` added, as OpenTelemetry's exporter names it. */
  counter(otelName: string, help: string): (delta: number, attributes: Attributes) => void {
    const base = sanitize(otelName);
    const name = base.endsWith('_total') ? base : `${base}_total`;
    const series = new Map<string, Series<number>>();
    this.#families.push({
      name,
      help,
      render(lines) {
        lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} counter`);
        for (const { labels, value } of series.values()) lines.push(`${name}${braces(labels)} ${value}`);
      },
    });
    return (delta, attributes) => {
      const labels = labelsOf(attributes);
      const entry = series.get(labels);
      if (entry === undefined) series.set(labels, { labels, value: delta });
      else entry.value += delta;
    };
  }

  /** The exposition text. */
  render(): string {
    const lines: string[] = [];
    for (const family of this.#families) family.render(lines);
    return `${lines.join('\n')}\n`;
  }
}

/**
 * `mcp.server.operation.duration` with unit `s` → `mcp_server_operation_duration_seconds`;
 * `pier.server.active_sessions` with `{session}` → `pier_server_active_sessions`.
 */
export function prometheusName(otelName: string, unit: string): string {
  const base = sanitize(otelName);
  const suffix = unit === 's' ? 'seconds' : undefined;
  return suffix === undefined || base.endsWith(`_${suffix}`) ? base : `${base}_${suffix}`;
}

function sanitize(name: string): string {
  return name.replace(/[^a-zA-Z0-9_:]/g, '_').replace(/^([0-9])/, '_$1');
}

/** Sorted `key="value"` pairs: the same attributes give the same series whatever their order. */
function labelsOf(attributes: Attributes): string {
  const pairs: string[] = [];
  for (const key of Object.keys(attributes).sort()) {
    const value = attributes[key];
    if (value === undefined) continue;
    pairs.push(`${sanitize(key)}="${escapeLabel(String(value))}"`);
  }
  return pairs.join(',');
}

function braces(labels: string): string {
  return labels === '' ? '' : `{${labels}}`;
}

function withLabel(labels: string, extra: string): string {
  return `{${labels === '' ? extra : `${labels},${extra}`}}`;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}
