// Runs the checks: in parallel, each under its own timeout, one evaluation at a time, reused for a TTL.
import { describeValue } from '@pier/core';
import { aggregateStatus, isHealthStatus } from './aggregate.js';
import type { HealthStatus, NormalizedCheck } from './definitions.js';

/** What one check reported in one evaluation. */
export interface HealthCheckOutcome {
  readonly name: string;
  readonly critical: boolean;
  /** The check's own status (a non-critical `unhealthy` stays `unhealthy` here; it counts as `degraded`). */
  readonly status: HealthStatus;
  readonly durationMs: number;
  /** Why the check counts as `unhealthy` when it did not say so itself: a message, never a stack. */
  readonly error?: string;
  readonly timedOut?: true;
  readonly message?: string;
  readonly details?: unknown;
}

/** One finished run of every check. */
export interface HealthEvaluation {
  readonly status: HealthStatus;
  readonly checks: readonly HealthCheckOutcome[];
  /** When the run finished, ISO 8601; a reused evaluation keeps it, so it tells the result's age. */
  readonly timestamp: string;
}

export interface EvaluatorOptions {
  readonly cacheTtlMs: number;
  /** Called once per finished run (not per request that shared it). */
  readonly onEvaluation?: (evaluation: HealthEvaluation) => void;
  /** Monotonic clock in milliseconds; injectable for tests. */
  readonly now?: () => number;
}

/** Longest error text taken from a failing check, so that a runaway message cannot bloat every probe. */
const MAX_ERROR_LENGTH = 500;

/**
 * Evaluates a fixed set of checks. Concurrent callers of `evaluate()` share one run; a finished run is
 * reused for `cacheTtlMs`; a check whose call outlived its timeout is not called again until it settles.
 */
export class HealthEvaluator {
  readonly #checks: readonly NormalizedCheck[];
  readonly #cacheTtlMs: number;
  readonly #onEvaluation: ((evaluation: HealthEvaluation) => void) | undefined;
  readonly #now: () => number;
  #inflight: Promise<HealthEvaluation> | undefined;
  #cached: { readonly evaluation: HealthEvaluation; readonly expiresAt: number } | undefined;
  /** Calls that have not settled yet, by check name. */
  readonly #pending = new Map<string, object>();
  /** Ends a running check at once (used by `close()`); each entry removes itself when the check ends. */
  readonly #running = new Set<() => void>();
  #closed = false;

  constructor(checks: readonly NormalizedCheck[], options: EvaluatorOptions) {
    this.#checks = checks;
    this.#cacheTtlMs = options.cacheTtlMs;
    this.#onEvaluation = options.onEvaluation;
    this.#now = options.now ?? (() => performance.now());
  }

  /** The cached evaluation while it is fresh, else `undefined`; never starts a run. */
  fresh(): HealthEvaluation | undefined {
    const cached = this.#cached;
    return cached !== undefined && this.#now() < cached.expiresAt ? cached.evaluation : undefined;
  }

  /** The current evaluation: a cached one, the one in flight, or a new run. Never rejects. */
  evaluate(): Promise<HealthEvaluation> {
    const fresh = this.fresh();
    if (fresh !== undefined) return Promise.resolve(fresh);
    if (this.#inflight === undefined) {
      const run = this.#run();
      this.#inflight = run;
      void run.then((evaluation) => {
        this.#inflight = undefined;
        if (this.#cacheTtlMs > 0 && !this.#closed) {
          this.#cached = { evaluation, expiresAt: this.#now() + this.#cacheTtlMs };
        }
        try {
          this.#onEvaluation?.(evaluation);
        } catch {
          // A report (a log line) failing must not become an unhandled rejection.
        }
      });
    }
    return this.#inflight;
  }

  /** Ends running checks now (reported `unhealthy`, their signals aborted) and clears every timer. */
  close(): void {
    this.#closed = true;
    this.#cached = undefined;
    for (const abandon of [...this.#running]) abandon();
  }

  async #run(): Promise<HealthEvaluation> {
    const checks = await Promise.all(this.#checks.map((check) => this.#runCheck(check)));
    return { status: aggregateStatus(checks), checks, timestamp: new Date().toISOString() };
  }

  #runCheck(check: NormalizedCheck): Promise<HealthCheckOutcome> {
    const base = { name: check.name, critical: check.critical };
    if (this.#closed) {
      return Promise.resolve({
        ...base,
        status: 'unhealthy',
        durationMs: 0,
        error: 'the health plugin is closed',
      });
    }
    if (this.#pending.has(check.name)) {
      return Promise.resolve({
        ...base,
        status: 'unhealthy',
        durationMs: 0,
        error: 'the previous call has not settled since it timed out; not called again until it does',
        timedOut: true,
      });
    }

    const controller = new AbortController();
    const started = this.#now();
    const elapsed = () => Math.max(0, Math.round(this.#now() - started));
    let call: Promise<unknown>;
    try {
      call = Promise.resolve(check.run({ signal: controller.signal }));
    } catch (error) {
      call = Promise.reject(error);
    }
    const token = {};
    this.#pending.set(check.name, token);
    const settled = () => {
      if (this.#pending.get(check.name) === token) this.#pending.delete(check.name);
    };
    call.then(settled, settled);

    return new Promise<HealthCheckOutcome>((resolve) => {
      let done = false;
      const finish = (outcome: HealthCheckOutcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.#running.delete(abandon);
        resolve(outcome);
      };
      const timer = setTimeout(() => {
        controller.abort(
          new DOMException(`health check timed out after ${check.timeoutMs} ms`, 'TimeoutError'),
        );
        finish({
          ...base,
          status: 'unhealthy',
          durationMs: elapsed(),
          error: `timed out after ${check.timeoutMs} ms`,
          timedOut: true,
        });
      }, check.timeoutMs);
      // A probe must never be what keeps a process alive.
      timer.unref();
      const abandon = () => {
        controller.abort(new DOMException('the health plugin was closed', 'AbortError'));
        finish({
          ...base,
          status: 'unhealthy',
          durationMs: elapsed(),
          error: 'abandoned: the health plugin was closed',
        });
      };
      this.#running.add(abandon);
      call.then(
        (value) => finish({ ...base, ...readResult(value), durationMs: elapsed() }),
        (reason: unknown) =>
          finish({ ...base, status: 'unhealthy', durationMs: elapsed(), error: describeFailure(reason) }),
      );
    });
  }
}

type ResultFields = Pick<HealthCheckOutcome, 'status' | 'error' | 'message' | 'details'>;

/** Turns whatever a check resolved into outcome fields; anything but a valid result is `unhealthy`. */
export function readResult(value: unknown): ResultFields {
  try {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return invalid(`expected an object with a "status", got ${describeValue(value)}`);
    }
    const { status, message, details } = value as Record<string, unknown>;
    if (!isHealthStatus(status)) {
      return invalid(`"status" must be "healthy", "degraded" or "unhealthy", got ${describeValue(status)}`);
    }
    if (message !== undefined && typeof message !== 'string') {
      return invalid(`"message" must be a string, got ${describeValue(message)}`);
    }
    const fields: { -readonly [K in keyof ResultFields]: ResultFields[K] } = { status };
    if (message !== undefined) fields.message = message;
    if (details !== undefined) {
      // A snapshot: the check may mutate its object later, and the body must serialise for sure.
      const json = JSON.stringify(details);
      if (json === undefined)
        return invalid(`"details" must be JSON-serialisable, got ${describeValue(details)}`);
      fields.details = JSON.parse(json);
    }
    return fields;
  } catch (error) {
    return invalid(`its result could not be read: ${describeFailure(error)}`);
  }
}

function invalid(reason: string): ResultFields {
  return { status: 'unhealthy', error: `invalid result: ${reason}` };
}

/** A message for a throw or rejection: an Error's message (never its stack), a safe summary otherwise. */
export function describeFailure(reason: unknown): string {
  try {
    if (typeof reason === 'object' && reason !== null) {
      const message = (reason as { message?: unknown }).message;
      if (typeof message === 'string' && message !== '') return truncate(message);
      if (reason instanceof Error) return `${truncate(reason.name)} without a message`;
    }
    return `failed with a non-Error value: ${describeValue(reason)}`;
  } catch {
    return 'failed with a value that could not be read';
  }
}

function truncate(text: string, max = MAX_ERROR_LENGTH): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
