// The public shapes of the plugin's options and their validation, done once when healthPlugin() is called.
import { describeValue, OptionIssues } from '@pier/core';
import { optionsError } from './errors.js';

/** The status of one check, and of the server as a whole. */
export type HealthStatus = 'healthy' | 'degraded' | 'unhealthy';

/** What a check resolves. Anything else (or a throw, a rejection, a timeout) counts as `unhealthy`. */
export interface HealthCheckResult {
  readonly status: HealthStatus;
  /** A short human-readable note, shown in `/health`. */
  readonly message?: string;
  /** Anything JSON-serialisable, shown in `/health` (never in `/health/ready`). */
  readonly details?: unknown;
}

/** What a check is given when it is called. */
export interface HealthCheckContext {
  /** Aborted when the check's timeout elapses or the server closes; pass it to `fetch`, drivers, etc. */
  readonly signal: AbortSignal;
}

/** One named check of a dependency. */
export interface HealthCheckDefinition {
  /** Unique, non-empty; the key of the check in response bodies. */
  readonly name: string;
  /** `true`: the server cannot work without it (its `unhealthy` makes the server `unhealthy`). */
  readonly critical: boolean;
  readonly check: (context: HealthCheckContext) => Promise<HealthCheckResult> | HealthCheckResult;
  /** Overrides the plugin's `timeoutMs` for this check. */
  readonly timeoutMs?: number;
}

/** Paths of the three endpoints. */
export interface HealthPaths {
  /** Default `/health`. */
  readonly health?: string;
  /** Default `/health/live`. */
  readonly live?: string;
  /** Default `/health/ready`. */
  readonly ready?: string;
}

/** Options of {@link healthPlugin}. */
export interface HealthPluginOptions {
  readonly checks: readonly HealthCheckDefinition[];
  readonly paths?: HealthPaths;
  /** Per-check timeout in milliseconds, unless the check sets its own. Default 500. */
  readonly timeoutMs?: number;
  /** How long a finished evaluation is reused, in milliseconds; `0` shares in-flight runs only. Default 1000. */
  readonly cacheTtlMs?: number;
  /** `false` keeps only the status fields in `/health`. Default `true`. */
  readonly exposeDetails?: boolean;
  /** Readiness stays `starting` until this resolves (or `markReady()` is called). */
  readonly readyWhen?: PromiseLike<unknown>;
}

/** A validated check, copied so that later changes to the user's object do not leak in. */
export interface NormalizedCheck {
  readonly name: string;
  readonly critical: boolean;
  readonly timeoutMs: number;
  readonly run: (context: HealthCheckContext) => unknown;
}

/** Validated options with every default filled in. */
export interface NormalizedOptions {
  readonly checks: readonly NormalizedCheck[];
  readonly paths: Required<HealthPaths>;
  readonly cacheTtlMs: number;
  readonly exposeDetails: boolean;
  readonly readyWhen: PromiseLike<unknown> | undefined;
}

export const DEFAULT_TIMEOUT_MS = 500;
export const DEFAULT_CACHE_TTL_MS = 1000;
export const DEFAULT_PATHS: Required<HealthPaths> = {
  health: '/health',
  live: '/health/live',
  ready: '/health/ready',
};
/** Larger delays overflow node's timers (they would fire after 1 ms). */

const OPTION_KEYS = new Set(['checks', 'paths', 'timeoutMs', 'cacheTtlMs', 'exposeDetails', 'readyWhen']);
const CHECK_KEYS = new Set(['name', 'critical', 'check', 'timeoutMs']);
const PATH_KEYS = new Set(['health', 'live', 'ready']);

/**
 * Validates `healthPlugin()`'s options and fills in defaults.
 * @throws {HealthPluginError} `HEALTH_OPTIONS_INVALID`, listing every problem, each naming its check.
 */
export function normalizeOptions(options: unknown): NormalizedOptions {
  const issues = new OptionIssues('healthPlugin');
  if (!isRecord(options)) {
    issues.add(`options must be an object with a "checks" array (got ${describeValue(options)})`);
    return issues.throwNow(optionsError);
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) issues.add(`unknown option "${key}"`);
  }

  const defaultTimeoutMs = options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : options.timeoutMs;
  if (!isTimeout(defaultTimeoutMs)) {
    issues.add(
      `option "timeoutMs" must be a positive number of milliseconds, at most 2147483647 (got ${describeValue(defaultTimeoutMs)})`,
    );
  }
  const cacheTtlMs = options.cacheTtlMs === undefined ? DEFAULT_CACHE_TTL_MS : options.cacheTtlMs;
  if (typeof cacheTtlMs !== 'number' || !Number.isFinite(cacheTtlMs) || cacheTtlMs < 0) {
    issues.add(`option "cacheTtlMs" must be a finite number ≥ 0 (got ${describeValue(cacheTtlMs)})`);
  }
  const exposeDetails = options.exposeDetails === undefined ? true : options.exposeDetails;
  if (typeof exposeDetails !== 'boolean') {
    issues.add(`option "exposeDetails" must be a boolean (got ${describeValue(exposeDetails)})`);
  }
  const readyWhen = options.readyWhen;
  if (readyWhen !== undefined && !isThenable(readyWhen)) {
    issues.add(`option "readyWhen" must be a promise (got ${describeValue(readyWhen)})`);
  }
  const paths = normalizePaths(options.paths, issues);

  const checks: NormalizedCheck[] = [];
  if (!Array.isArray(options.checks)) {
    issues.add(
      `option "checks" must be an array of check definitions (got ${describeValue(options.checks)})`,
    );
  } else {
    const seen = new Set<string>();
    options.checks.forEach((definition: unknown, index: number) => {
      const check = normalizeCheck(
        definition,
        index,
        issues,
        isTimeout(defaultTimeoutMs) ? defaultTimeoutMs : 0,
      );
      if (check === undefined) return;
      if (seen.has(check.name)) {
        issues.add(`check "${check.name}" (checks[${index}]): duplicate name; check names must be unique`);
        return;
      }
      seen.add(check.name);
      checks.push(check);
    });
  }

  issues.throwIfAny(optionsError);
  return {
    checks,
    paths,
    cacheTtlMs: cacheTtlMs as number,
    exposeDetails: exposeDetails as boolean,
    readyWhen: readyWhen as PromiseLike<unknown> | undefined,
  };
}

/** Returns the check when it is valid; otherwise records why (naming it) and returns `undefined`. */
function normalizeCheck(
  definition: unknown,
  index: number,
  issues: OptionIssues,
  defaultTimeoutMs: number,
): NormalizedCheck | undefined {
  if (!isRecord(definition)) {
    issues.add(`checks[${index}]: must be an object (got ${describeValue(definition)})`);
    return undefined;
  }
  const { name } = definition;
  const hasName = typeof name === 'string' && name.trim() !== '';
  const label = hasName ? `check "${name}" (checks[${index}])` : `checks[${index}]`;
  const before = issues.count;
  if (!hasName) issues.add(`${label}: "name" must be a non-empty string (got ${describeValue(name)})`);
  for (const key of Object.keys(definition)) {
    if (!CHECK_KEYS.has(key)) issues.add(`${label}: unknown property "${key}"`);
  }
  if (typeof definition.critical !== 'boolean') {
    issues.add(`${label}: "critical" must be a boolean (got ${describeValue(definition.critical)})`);
  }
  const check = definition.check;
  if (typeof check !== 'function') {
    issues.add(`${label}: "check" must be a function (got ${describeValue(check)})`);
  }
  const timeoutMs = definition.timeoutMs === undefined ? defaultTimeoutMs : definition.timeoutMs;
  if (definition.timeoutMs !== undefined && !isTimeout(timeoutMs)) {
    issues.add(
      `${label}: "timeoutMs" must be a positive number of milliseconds, at most 2147483647 (got ${describeValue(timeoutMs)})`,
    );
  }
  if (issues.count > before || typeof check !== 'function') return undefined;
  return {
    name: name as string,
    critical: definition.critical as boolean,
    timeoutMs: timeoutMs as number,
    // Called with the user's object as `this`, as `definition.check()` would be.
    run: (context) => Reflect.apply(check, definition, [context]),
  };
}

function normalizePaths(paths: unknown, issues: OptionIssues): Required<HealthPaths> {
  if (paths === undefined) return DEFAULT_PATHS;
  if (!isRecord(paths)) {
    issues.add(`option "paths" must be an object (got ${describeValue(paths)})`);
    return DEFAULT_PATHS;
  }
  for (const key of Object.keys(paths)) {
    if (!PATH_KEYS.has(key))
      issues.add(`option "paths": unknown endpoint "${key}" (use health, live, ready)`);
  }
  const result = { ...DEFAULT_PATHS };
  for (const key of PATH_KEYS as Set<keyof HealthPaths>) {
    const value = paths[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !value.startsWith('/') || /[?#\s]/.test(value)) {
      issues.add(`option "paths.${key}" must be a path starting with "/", without "?", "#" or spaces`);
      continue;
    }
    result[key] = value;
  }
  if (new Set(Object.values(result)).size !== 3) {
    issues.add(`option "paths": health, live and ready must be three different paths`);
  }
  return result;
}

/** Node's longest timer: 2^31 − 1 ms, about 24.8 days. */
const MAX_TIMER_MS = 2_147_483_647;

function isTimeout(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_TIMER_MS;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
