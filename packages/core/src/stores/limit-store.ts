// Where request limits count (rates, quotas, calls in flight): a small interface a store shared by replicas
// implements (`@pier/redis`'s `redisLimitStore`), and the embedded in-memory default: one process, bounded
// in keys, each key dropped once its window has passed. `@pier/plugin-limits` decides what to count; a store
// only counts, atomically.
import { MAX_TIMER_MS, OptionIssues, optionsError } from '../errors.js';

/**
 * A token bucket (GCRA): `limit` units per `windowMs`, refilled continuously; a full bucket admits `limit`
 * units at once. A request costs `cost` units.
 */
export interface RateLimitCheck {
  readonly kind: 'rate';
  readonly key: string;
  readonly limit: number;
  readonly windowMs: number;
  readonly cost: number;
}

/** A fixed window of `windowMs`, aligned on the Unix epoch (a day starts at 00:00 UTC): `limit` units each. */
export interface QuotaLimitCheck {
  readonly kind: 'quota';
  readonly key: string;
  readonly limit: number;
  readonly windowMs: number;
  readonly cost: number;
}

/** At most `limit` holds at once; `holder` names this one (released with {@link LimitStore.release}). */
export interface ConcurrencyLimitCheck {
  readonly kind: 'concurrency';
  readonly key: string;
  readonly limit: number;
  readonly holder: string;
}

/** One check of a request against one limit. */
export type LimitCheck = RateLimitCheck | QuotaLimitCheck | ConcurrencyLimitCheck;

/** How one check went. */
export interface LimitOutcome {
  readonly allowed: boolean;
  /** Units left: after this request when it was admitted, now when it was refused. Never negative. */
  readonly remaining: number;
  /** Milliseconds until the limit is whole again (the bucket full, the window over); 0 for concurrency. */
  readonly resetMs: number;
  /** Refused: milliseconds until the same check would pass (0 when unknown: concurrency). 0 when admitted. */
  readonly retryAfterMs: number;
}

/** A concurrency hold to give back. */
export interface LimitHold {
  readonly key: string;
  readonly holder: string;
}

/**
 * Counts requests against limits for `@pier/plugin-limits`. A store shared by replicas must make each
 * `consume` atomic: every check passes and is counted, or none is counted.
 */
export interface LimitStore {
  /**
   * Checks every entry and, only when all pass, counts them all; one outcome per check, in order. The keys
   * of one call are distinct. Rejects (or throws) when the store cannot be reached: the caller then fails
   * open or closed.
   */
  consume(checks: readonly LimitCheck[]): Promise<readonly LimitOutcome[]> | readonly LimitOutcome[];
  /** Gives back concurrency holds taken by `consume`. */
  release(holds: readonly LimitHold[]): Promise<void> | void;
  /** Optional: resolves when the store can be used, rejects when it cannot (for a health check). */
  check?(): Promise<void>;
}

/** Options of {@link InMemoryLimitStore}. */
export interface InMemoryLimitStoreOptions {
  /**
   * Most rate and quota keys held at once. Default 100,000. Past it, expired keys are dropped first, then
   * the least recently used (recency is kept to within half of each key's window): a key forgotten this
   * way starts afresh (its caller may get a second budget).
   */
  readonly maxKeys?: number;
  /** How often expired keys are dropped, in ms. Default 10,000. */
  readonly sweepIntervalMs?: number;
  /** The clock, in ms since the epoch (tests). Default `Date.now`. */
  readonly now?: () => number;
}

interface RateEntry {
  /** Theoretical arrival time: when the bucket is full again. */
  tat: number;
  expiresAt: number;
  /** When the key last moved to the end of the recency order. */
  touchedAt: number;
}

interface QuotaEntry {
  windowStart: number;
  used: number;
  expiresAt: number;
  touchedAt: number;
}

/** Absorbs the float error of `windowMs / limit` steps (so 3 units left never reads as 2.9999). */
const EPSILON = 1e-6;

/**
 * The embedded store: counts in this process only (each replica counts on its own). Bounded in keys; every
 * key is dropped once its window has passed, so memory follows the callers active in the last window.
 */
export class InMemoryLimitStore implements LimitStore {
  readonly #maxKeys: number;
  readonly #sweepIntervalMs: number;
  readonly #now: () => number;
  // Map order is recency, to half a window: an entry used is moved to the end when it last moved more than
  // half its window ago, so the first entries are the least recently used. Otherwise it is updated where it
  // is: moving a key on every check (a delete and a set) would make V8 replace the map's hash table every
  // few checks, and each replaced table keeps a pointer to its successor and to what it held, which the
  // young-generation collector then keeps alive until a full collection.
  readonly #rates = new Map<string, RateEntry>();
  readonly #quotas = new Map<string, QuotaEntry>();
  readonly #holds = new Map<string, Set<string>>();
  #sweeper: ReturnType<typeof setInterval> | undefined;
  /** The entry the last {@link #evaluate} read (rate and quota checks), for {@link #apply}. */
  #found: RateEntry | QuotaEntry | undefined;

  constructor(options: InMemoryLimitStoreOptions = {}) {
    const issues = new OptionIssues('InMemoryLimitStore');
    if (options === null || typeof options !== 'object') {
      issues.expect('options', 'an object { maxKeys?, sweepIntervalMs?, now? }', options);
      issues.throwNow(optionsError);
    }
    const { maxKeys = 100_000, sweepIntervalMs = 10_000, now = Date.now } = options;
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) issues.expect('maxKeys', 'an integer ≥ 1', maxKeys);
    if (!Number.isSafeInteger(sweepIntervalMs) || sweepIntervalMs < 1 || sweepIntervalMs > MAX_TIMER_MS) {
      issues.expect('sweepIntervalMs', `an integer from 1 to ${MAX_TIMER_MS}`, sweepIntervalMs);
    }
    if (typeof now !== 'function') issues.expect('now', 'a function () => ms since the epoch', now);
    issues.throwIfAny(optionsError);
    this.#maxKeys = maxKeys;
    this.#sweepIntervalMs = sweepIntervalMs;
    this.#now = now;
  }

  /** Keys held now (rate and quota keys, and concurrency keys with holds). */
  get size(): number {
    return this.#rates.size + this.#quotas.size + this.#holds.size;
  }

  consume(checks: readonly LimitCheck[]): readonly LimitOutcome[] {
    const now = this.#now();
    const count = checks.length;
    // One check (the common case): its entry is looked up once, for the decision and the count.
    if (count === 1) {
      const check = checks[0] as LimitCheck;
      const outcome = this.#evaluate(check, now);
      if (outcome.allowed) {
        this.#apply(check, now, this.#found);
        if (check.kind !== 'concurrency') this.#bound();
      }
      return [outcome];
    }
    const outcomes: LimitOutcome[] = new Array(count);
    const found: (RateEntry | QuotaEntry | undefined)[] = new Array(count);
    let allowed = true;
    for (let index = 0; index < count; index++) {
      const outcome = this.#evaluate(checks[index] as LimitCheck, now);
      if (!outcome.allowed) allowed = false;
      outcomes[index] = outcome;
      found[index] = this.#found;
    }
    if (allowed) {
      // Bounded after every check is counted: dropping keys between two counts could drop an entry found.
      for (let index = 0; index < count; index++) this.#apply(checks[index] as LimitCheck, now, found[index]);
      if (this.#rates.size + this.#quotas.size > 0) this.#bound();
    }
    return outcomes;
  }

  release(holds: readonly LimitHold[]): void {
    for (const { key, holder } of holds) {
      const holders = this.#holds.get(key);
      if (holders === undefined) continue;
      holders.delete(holder);
      if (holders.size === 0) this.#holds.delete(key);
    }
  }

  /** Drops every key whose window has passed. */
  sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#rates) if (entry.expiresAt <= now) this.#rates.delete(key);
    for (const [key, entry] of this.#quotas) if (entry.expiresAt <= now) this.#quotas.delete(key);
    if (this.#rates.size + this.#quotas.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  #evaluate(check: LimitCheck, now: number): LimitOutcome {
    switch (check.kind) {
      case 'rate': {
        const step = check.windowMs / check.limit;
        const entry = this.#rates.get(check.key);
        this.#found = entry;
        const base = entry === undefined || entry.tat < now ? now : entry.tat;
        const next = base + check.cost * step;
        const allowAt = next - check.windowMs;
        if (allowAt > now + EPSILON) {
          return {
            allowed: false,
            remaining: units(now + check.windowMs - base, step),
            resetMs: Math.ceil(base - now),
            retryAfterMs: Math.ceil(allowAt - now),
          };
        }
        return {
          allowed: true,
          remaining: units(now + check.windowMs - next, step),
          resetMs: Math.ceil(next - now),
          retryAfterMs: 0,
        };
      }
      case 'quota': {
        const start = Math.floor(now / check.windowMs) * check.windowMs;
        const end = start + check.windowMs;
        const entry = this.#quotas.get(check.key);
        this.#found = entry;
        const used = entry !== undefined && entry.windowStart === start ? entry.used : 0;
        if (used + check.cost > check.limit) {
          return {
            allowed: false,
            remaining: Math.max(0, check.limit - used),
            resetMs: end - now,
            retryAfterMs: end - now,
          };
        }
        return {
          allowed: true,
          remaining: check.limit - used - check.cost,
          resetMs: end - now,
          retryAfterMs: 0,
        };
      }
      case 'concurrency': {
        this.#found = undefined;
        const held = this.#holds.get(check.key)?.size ?? 0;
        if (held + 1 > check.limit) return { allowed: false, remaining: 0, resetMs: 0, retryAfterMs: 0 };
        return { allowed: true, remaining: check.limit - held - 1, resetMs: 0, retryAfterMs: 0 };
      }
    }
  }

  /** Counts `check`, whose entry `#evaluate` found (`found`) and nothing has changed since. */
  #apply(check: LimitCheck, now: number, found: RateEntry | QuotaEntry | undefined): void {
    switch (check.kind) {
      case 'rate': {
        const step = check.windowMs / check.limit;
        const entry = found as RateEntry | undefined;
        const base = entry === undefined || entry.tat < now ? now : entry.tat;
        const tat = base + check.cost * step;
        if (entry === undefined) {
          this.#rates.set(check.key, { tat, expiresAt: tat, touchedAt: now });
          break;
        }
        entry.tat = tat;
        entry.expiresAt = tat;
        if (now - entry.touchedAt > check.windowMs / 2) {
          entry.touchedAt = now;
          this.#rates.delete(check.key);
          this.#rates.set(check.key, entry);
        }
        break;
      }
      case 'quota': {
        const start = Math.floor(now / check.windowMs) * check.windowMs;
        const entry = found as QuotaEntry | undefined;
        const used = entry !== undefined && entry.windowStart === start ? entry.used : 0;
        if (entry === undefined) {
          this.#quotas.set(check.key, {
            windowStart: start,
            used: used + check.cost,
            expiresAt: start + check.windowMs,
            touchedAt: now,
          });
          break;
        }
        entry.windowStart = start;
        entry.used = used + check.cost;
        entry.expiresAt = start + check.windowMs;
        if (now - entry.touchedAt > check.windowMs / 2) {
          entry.touchedAt = now;
          this.#quotas.delete(check.key);
          this.#quotas.set(check.key, entry);
        }
        break;
      }
      case 'concurrency': {
        let holders = this.#holds.get(check.key);
        if (holders === undefined) {
          holders = new Set();
          this.#holds.set(check.key, holders);
        }
        holders.add(check.holder);
        return;
      }
    }
  }

  /** Keeps the key count under `maxKeys` and the sweeper running while there are keys. */
  #bound(): void {
    if (this.#rates.size + this.#quotas.size > this.#maxKeys) {
      this.sweep();
      while (this.#rates.size + this.#quotas.size > this.#maxKeys) {
        // The least recently used entry of the larger map goes.
        const rate = this.#rates.keys().next();
        const quota = this.#quotas.keys().next();
        if (!rate.done && (quota.done || this.#rates.size >= this.#quotas.size))
          this.#rates.delete(rate.value);
        else if (!quota.done) this.#quotas.delete(quota.value);
      }
    }
    if (this.#sweeper === undefined) {
      this.#sweeper = setInterval(() => this.sweep(), this.#sweepIntervalMs);
      this.#sweeper.unref?.();
    }
  }
}

/** Whole units of `step` in `span` (never negative). */
function units(span: number, step: number): number {
  return Math.max(0, Math.floor(span / step + EPSILON));
}
