import { ConfigError } from './config-error.js';
import { type ConfigSource, maskValue, resolvedValues } from './config-object.js';

/** Options of {@link configReport}. */
export interface ConfigReportOptions {
  /** `'mask'` (default): a secret's `value` is masked. `'presence'`: a secret has no `value`, only `present`. */
  readonly secrets?: 'mask' | 'presence';
}

/** One key of a {@link ConfigReport}. */
export interface ConfigReportEntry {
  /** The value; for a secret, its mask (or nothing, with `secrets: 'presence'`). Absent when unset. */
  readonly value?: unknown;
  /** Whether the key has a value. */
  readonly present: boolean;
  readonly secret: boolean;
  readonly source: ConfigSource;
}

/** A plain, JSON-ready description of a configuration: safe to log or return from a tool. */
export type ConfigReport = { readonly [key: string]: ConfigReportEntry };

/**
 * Describes a configuration returned by `loadConfig` or `parseConfig`, key by key, with each value's
 * source and every secret masked or reduced to a presence flag.
 *
 * @example
 * configReport(config).apiKey;
 * // { value: 'sk-l********', present: true, secret: true, source: 'API_KEY' }
 */
export function configReport(config: object, options: ConfigReportOptions = {}): ConfigReport {
  const values = typeof config === 'object' && config !== null ? resolvedValues(config) : undefined;
  if (values === undefined) {
    throw new ConfigError(
      'CONFIG_NOT_LOADED',
      'configReport expects a configuration returned by loadConfig or parseConfig',
    );
  }
  const report: Record<string, ConfigReportEntry> = {};
  for (const { key, value, source, secret } of values) {
    const present = value !== undefined;
    const shown = secret ? (options.secrets === 'presence' ? undefined : maskValue(value)) : value;
    const entry: ConfigReportEntry =
      shown === undefined ? { present, secret, source } : { value: shown, present, secret, source };
    Object.defineProperty(report, key, { value: entry, enumerable: true });
  }
  return report;
}
