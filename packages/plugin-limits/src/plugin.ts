// limitsPlugin(): one middleware that counts each request against the rules it meets, in one atomic call
// of the store, before the handler runs; refuses what is over a limit; and reports the budget left in
// `RateLimit` headers.
import {
  InMemoryLimitStore,
  type LimitCheck,
  type LimitHold,
  type LimitOutcome,
  type LimitStore,
  type Logger,
  type MiddlewareContext,
  type PierPlugin,
  type PluginContext,
} from '@pier/core';
import { errorMessage } from './errors.js';
import { type LimitsPluginOptions, normalizeOptions, type Rule } from './options.js';
import { type Plan, Planner } from './plan.js';
import { refuse } from './refusal.js';

/** What the plugin reports as it decides (for metrics: `otelPlugin({ limits })`). */
export type LimitEvent =
  /** A request was refused by `rule`. */
  | {
      readonly type: 'refused';
      readonly rule: string;
      readonly kind: Rule['kind'];
      readonly reason: 'exceeded' | 'unavailable';
    }
  /** The store could not be reached: `rule` was decided without it, open (admitted) or closed (refused). */
  | { readonly type: 'store-error'; readonly rule: string; readonly mode: 'open' | 'closed' }
  /** The store became unreachable (`false`) or reachable again (`true`). */
  | { readonly type: 'store'; readonly available: boolean };

/** Options of {@link LimitsPlugin.healthCheck}. */
export interface LimitsHealthCheckOptions {
  /** Default `limits`. */
  readonly name?: string;
  /** Default `false`: an unreachable store makes the server `degraded`, never unready. */
  readonly critical?: boolean;
  readonly timeoutMs?: number;
}

/** A check for `healthPlugin({ checks })` (the shape of plugin-health's `HealthCheckDefinition`). */
export interface LimitsHealthCheck {
  readonly name: string;
  readonly critical: boolean;
  readonly timeoutMs?: number;
  check(): Promise<{
    readonly status: 'healthy' | 'unhealthy';
    readonly message?: string;
    readonly details: Readonly<Record<string, unknown>>;
  }>;
}

/** The plugin, with what other plugins read of it. */
export interface LimitsPlugin extends PierPlugin {
  /** The store the limits count in. */
  readonly store: LimitStore;
  /** Calls `listener` with every {@link LimitEvent}; returns the function that stops the calls. */
  onEvent(listener: (event: LimitEvent) => void): () => void;
  /** A non-critical check of the store for `@pier/plugin-health`. */
  healthCheck(options?: LimitsHealthCheckOptions): LimitsHealthCheck;
}

/**
 * Rate limits, quotas and concurrency caps, per principal, OAuth client, IP or the whole server, on the
 * methods and tools each rule names. Give every replica the same shared store for limits that hold across
 * the fleet.
 *
 * @example
 * ```ts
 * limitsPlugin({
 *   rules: [{ name: 'add-note', key: 'principal', tools: 'add_note', rate: { limit: 10, windowMs: 60_000 } }],
 *   store: redisLimitStore({ url: process.env.REDIS_URL }),
 * })
 * ```
 * @throws {LimitsPluginError} `LIMITS_OPTIONS_INVALID` naming every bad option (all of them, with their paths).
 */
export function limitsPlugin(options: LimitsPluginOptions): LimitsPlugin {
  const normalized = normalizeOptions(options);
  const store: LimitStore = normalized.store ?? new InMemoryLimitStore();
  const planner = new Planner(normalized.rules, normalized.costs);
  const listeners = new Set<(event: LimitEvent) => void>();
  const ipOf = normalized.clientIp ?? ((ctx: MiddlewareContext) => ctx.remoteAddress);
  const withHeaders = normalized.headers;
  // Concurrency holders are unique across replicas: this process's id and a counter.
  const node = globalThis.crypto.randomUUID();
  let holders = 0;
  let logger: Logger | undefined;
  /** Since when the store has been unreachable (`undefined`: it answered last time). */
  let downSince: number | undefined;

  const emit = (event: LimitEvent): void => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        logger?.warn('a limits listener failed', { error: errorMessage(error) });
      }
    }
  };

  /** The store key of `plan`'s rule at `index` for this request: the rule's name, then its key's value. */
  const keyOf = (plan: Plan, index: number, ctx: MiddlewareContext): string => {
    const rule = plan.rules[index] as Rule;
    const { key } = rule;
    let value: string | undefined;
    if (key === 'principal') value = ctx.principal;
    else if (key === 'client') value = ctx.auth?.clientId;
    else if (key === 'ip') value = ipOf(ctx);
    else if (key === 'server') value = '';
    else value = key(ctx);
    value ??= '';
    if (plan.lastValues[index] === value) return plan.lastKeys[index] as string;
    // The rule's name first: two rules never share a key.
    const made = `${rule.name}:${value}`;
    plan.lastValues[index] = value;
    plan.lastKeys[index] = made;
    return made;
  };

  const storeFailed = (plan: Plan, error: unknown, ctx: MiddlewareContext): Rule | undefined => {
    if (downSince === undefined) {
      downSince = Date.now();
      const closed = normalized.rules.filter((rule) => rule.failClosed).map((rule) => rule.name);
      logger?.warn('the limit store is unreachable: limits fail open, except those listed', {
        error: errorMessage(error),
        closed: closed.join(',') || 'none',
      });
      emit({ type: 'store', available: false });
    }
    let refusing: Rule | undefined;
    for (const rule of plan.rules) {
      if (listeners.size > 0)
        emit({ type: 'store-error', rule: rule.name, mode: rule.failClosed ? 'closed' : 'open' });
      if (rule.failClosed && (refusing === undefined || refusing.tool !== undefined)) refusing = rule;
    }
    if (refusing !== undefined)
      logger?.debug('refused: limit store unreachable', { rule: refusing.name, method: ctx.method });
    return refusing;
  };

  const storeBack = (): void => {
    if (downSince === undefined) return;
    downSince = undefined;
    logger?.info('the limit store answers again');
    emit({ type: 'store', available: true });
  };

  /** What the request is refused with when the store could not be asked (or `next()` when it fails open). */
  const unreachable = (
    plan: Plan,
    error: unknown,
    ctx: MiddlewareContext,
    next: () => Promise<unknown>,
    asTool: boolean,
    http: boolean,
  ): unknown => {
    const refusing = storeFailed(plan, error, ctx);
    if (refusing === undefined) return next();
    if (listeners.size > 0)
      emit({ type: 'refused', rule: refusing.name, kind: refusing.kind, reason: 'unavailable' });
    const headers: Record<string, string> = {};
    const refusal = refuse(refusing, 'unavailable', 1_000, 0, asTool && refusing.tool !== undefined, headers);
    if (http) for (const [name, value] of Object.entries(headers)) ctx.setHeader(name, value);
    return refusal;
  };

  /** Admits the request (and releases its holds once it is served) or refuses it, from the store's outcomes. */
  const decide = (
    plan: Plan,
    outcomes: readonly LimitOutcome[],
    ctx: MiddlewareContext,
    next: () => Promise<unknown>,
    holds: readonly LimitHold[] | undefined,
    asTool: boolean,
    http: boolean,
  ): unknown => {
    if (downSince !== undefined) storeBack();
    const rules = plan.rules;
    // The binding refusal: the one that lasts longest; a tool error only when every refusing rule is a tool limit.
    let binding: number | undefined;
    let toolsOnly = true;
    for (let index = 0; index < outcomes.length; index++) {
      const outcome = outcomes[index] as LimitOutcome;
      if (outcome.allowed) continue;
      if ((rules[index] as Rule).tool === undefined) toolsOnly = false;
      if (binding === undefined || outcome.retryAfterMs > (outcomes[binding] as LimitOutcome).retryAfterMs) {
        binding = index;
      }
    }
    if (binding !== undefined) {
      const rule = rules[binding] as Rule;
      const outcome = outcomes[binding] as LimitOutcome;
      if (listeners.size > 0) emit({ type: 'refused', rule: rule.name, kind: rule.kind, reason: 'exceeded' });
      logger?.debug('refused: over a limit', { rule: rule.name, method: ctx.method });
      const headers: Record<string, string> = {};
      if (http) {
        headers['ratelimit-policy'] = plan.policy;
        headers.ratelimit = rateLimitOf(plan, outcomes);
      }
      // A concurrency limit cannot know when a slot frees: a second is the hint.
      const retryAfterMs = rule.kind === 'concurrency' ? 1_000 : outcome.retryAfterMs;
      const refusal = refuse(rule, 'exceeded', retryAfterMs, outcome.resetMs, asTool && toolsOnly, headers);
      if (http) for (const [name, value] of Object.entries(headers)) ctx.setHeader(name, value);
      return refusal;
    }
    // Admitted (the hot path): the policy was written once per plan; only `RateLimit` is built per call.
    if (http) {
      ctx.setHeader('ratelimit-policy', plan.policy);
      ctx.setHeader('ratelimit', rateLimitOf(plan, outcomes));
    }
    if (holds === undefined) return next();
    return next().finally(() => release(holds));
  };

  // Not an async function: with a store that answers at once (the in-memory one), an admitted request goes
  // on to `next()` in the same turn, without waiting a microtask for the store's answer.
  const middleware = (ctx: MiddlewareContext, next: () => Promise<unknown>): unknown => {
    const plan = planner.planOf(ctx);
    const rules = plan.rules;
    if (rules.length === 0) return next();
    const count = rules.length;
    const checks: LimitCheck[] = new Array(count);
    let holds: LimitHold[] | undefined;
    for (let index = 0; index < count; index++) {
      const rule = rules[index] as Rule;
      const key = keyOf(plan, index, ctx);
      if (rule.kind === 'concurrency') {
        const holder = `${node}:${++holders}`;
        checks[index] = { kind: 'concurrency', key, limit: rule.limit, holder };
        holds ??= [];
        holds.push({ key, holder });
      } else {
        // A cost above the limit spends all of it (more could never pass).
        const cost = Math.min(plan.cost, rule.limit);
        checks[index] = { kind: rule.kind, key, limit: rule.limit, windowMs: rule.windowMs, cost };
      }
    }
    // A task-augmented call expects a task or an error, never a plain tool result.
    const asTool = ctx.method === 'tools/call' && ctx.params.task === undefined;
    const http = withHeaders && ctx.transport === 'http';
    let consumed: ReturnType<LimitStore['consume']>;
    try {
      consumed = store.consume(checks);
    } catch (error) {
      return unreachable(plan, error, ctx, next, asTool, http);
    }
    // Any thenable a custom store returns, not only a native promise.
    if (typeof (consumed as { then?: unknown }).then === 'function') {
      return Promise.resolve(consumed).then(
        (outcomes) => decide(plan, outcomes, ctx, next, holds, asTool, http),
        (error: unknown) => unreachable(plan, error, ctx, next, asTool, http),
      );
    }
    return decide(plan, consumed as readonly LimitOutcome[], ctx, next, holds, asTool, http);
  };

  const release = (holds: readonly LimitHold[]): void => {
    try {
      const released = store.release(holds);
      if (released instanceof Promise) {
        released.catch((error: unknown) =>
          logger?.debug('a concurrency hold was not released (the store lets it expire)', {
            error: errorMessage(error),
          }),
        );
      }
    } catch (error) {
      logger?.debug('a concurrency hold was not released', { error: errorMessage(error) });
    }
  };

  return {
    name: 'limits',
    store,
    setup(ctx: PluginContext) {
      logger = ctx.logger;
      if (normalized.rules.length === 0) return;
      ctx.use(planner.match, middleware as Parameters<PluginContext['use']>[1]);
    },
    onEvent(listener) {
      const own = (event: LimitEvent) => listener(event);
      listeners.add(own);
      return () => {
        listeners.delete(own);
      };
    },
    healthCheck(checkOptions = {}) {
      const { name = 'limits', critical = false, timeoutMs } = checkOptions;
      const failClosed = normalized.rules.filter((rule) => rule.failClosed).map((rule) => rule.name);
      const failOpen = normalized.rules.filter((rule) => !rule.failClosed).map((rule) => rule.name);
      return {
        name,
        critical,
        ...(timeoutMs !== undefined && { timeoutMs }),
        async check() {
          const details = { failOpen, failClosed };
          try {
            if (store.check !== undefined) await store.check();
            else if (downSince !== undefined) throw new Error('the last request could not reach it');
          } catch (error) {
            return {
              status: 'unhealthy' as const,
              message: `limit store unreachable: ${failOpen.length > 0 ? `${failOpen.join(', ')} fail open` : ''}${failOpen.length > 0 && failClosed.length > 0 ? '; ' : ''}${failClosed.length > 0 ? `${failClosed.join(', ')} fail closed` : ''} (${errorMessage(error)})`,
              details: {
                ...details,
                ...(downSince !== undefined && { since: new Date(downSince).toISOString() }),
              },
            };
          }
          return { status: 'healthy' as const, details };
        },
      };
    },
  };
}

/**
 * `RateLimit` (draft-ietf-httpapi-ratelimit-headers): `"add-note";r=9;t=6` per rule, from each rule's
 * prefix the plan made once (`"add-note";r=`): one string built per call.
 */
function rateLimitOf(plan: Plan, outcomes: readonly LimitOutcome[]): string {
  const { rules, prefixes } = plan;
  let value = '';
  for (let index = 0; index < rules.length; index++) {
    const outcome = outcomes[index] as LimitOutcome;
    const member =
      (rules[index] as Rule).kind === 'concurrency'
        ? `${prefixes[index]}${outcome.remaining}`
        : `${prefixes[index]}${outcome.remaining};t=${Math.ceil(outcome.resetMs / 1_000)}`;
    value = index === 0 ? member : `${value}, ${member}`;
  }
  return value;
}
