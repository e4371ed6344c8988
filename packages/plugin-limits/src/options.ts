// limitsPlugin() options: what a user writes, and their validation at the call (every problem in one
// message), into the rules the middleware runs.
import { type LimitStore, type MiddlewareContext, OptionIssues, type ToolDeclaration } from '@pier/core';
import { optionsError } from './errors.js';

/** Whose budget a request spends. */
export type LimitKey =
  /** The caller the authenticator names (`ctx.principal`); anonymous callers share one budget. */
  | 'principal'
  /** The OAuth client (`ctx.auth.clientId`); anonymous callers share one budget. */
  | 'client'
  /** The caller's IP address (see `clientIp`); requests without one (stdio) share one budget. */
  | 'ip'
  /** One budget for the whole server (the fleet, with a shared store). */
  | 'server'
  /** Your own key; `undefined` or `''` is one shared budget. */
  | ((ctx: MiddlewareContext) => string | undefined);

/** A tool's annotations, as declared (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`…). */
export type ToolAnnotationsMatch = Readonly<Partial<NonNullable<ToolDeclaration['annotations']>>>;

/** One limit. Give exactly one of `rate`, `quota` and `concurrency`. */
export interface LimitRule {
  /** Names the limit in errors, headers and metrics: 1–64 of `A-Z a-z 0-9 _ . -`, unique. */
  readonly name: string;
  /** Whose budget a request spends. */
  readonly key: LimitKey;
  /**
   * The requests it counts: a method (`tools/list`), several, or `'*'` (the default without `tools` or
   * `annotations`): every request but `initialize`, `server/discover` and `ping`, which are never limited.
   */
  readonly methods?: string | readonly string[];
  /** `tools/call` of these tools only: names, or a test of each tool's declaration. */
  readonly tools?: string | readonly string[] | ((tool: ToolDeclaration) => boolean);
  /** `tools/call` of tools whose annotations have these values (`{ readOnlyHint: false }`). */
  readonly annotations?: ToolAnnotationsMatch;
  /**
   * A token bucket: at most `limit` units at once, refilled at `limit` per `windowMs` (in any span of
   * `t` ms it admits at most `limit + limit·t/windowMs` units).
   */
  readonly rate?: { readonly limit: number; readonly windowMs: number };
  /** At most `limit` units per fixed window (default a day, from 00:00 UTC), the same for every replica. */
  readonly quota?: { readonly limit: number; readonly windowMs?: number };
  /** At most `limit` of its requests in flight at once. */
  readonly concurrency?: { readonly limit: number };
  /**
   * When the store cannot be reached: `'open'` (the default) lets the request through, uncounted;
   * `'closed'` refuses it (503 with `Retry-After`, or a tool error for a tool limit).
   */
  readonly onStoreError?: 'open' | 'closed';
}

/** Options of `limitsPlugin`. */
export interface LimitsPluginOptions {
  readonly rules: readonly LimitRule[];
  /**
   * Where the counts live. Default: a new `InMemoryLimitStore` (this process only: N replicas admit N times
   * the limit). Give every replica the same shared store (`redisLimitStore` of `@pier/redis`) for fleet-wide limits.
   */
  readonly store?: LimitStore;
  /** Units a call of each tool costs in rate and quota limits (whole numbers ≥ 1; default 1). */
  readonly costs?: Readonly<Record<string, number>>;
  /**
   * The caller's IP address for `key: 'ip'`. Default: the socket's (`ctx.remoteAddress`). Behind a proxy,
   * read the header your proxy sets, trusting only the part your proxy wrote.
   */
  readonly clientIp?: (ctx: MiddlewareContext) => string | undefined;
  /** `false`: no `RateLimit`/`RateLimit-Policy` response headers. Default `true`. */
  readonly headers?: boolean;
}

/** Methods no rule ever counts: a client must always be able to find the server and learn what it is. */
export const NEVER_LIMITED: ReadonlySet<string> = new Set(['initialize', 'server/discover', 'ping']);

/** A rule ready to run. */
export interface Rule {
  readonly name: string;
  readonly kind: 'rate' | 'quota' | 'concurrency';
  readonly limit: number;
  /** Rate and quota: the window; concurrency: 0. */
  readonly windowMs: number;
  readonly key: LimitKey;
  /** `'*'`: every request but {@link NEVER_LIMITED}. */
  readonly methods: ReadonlySet<string> | '*';
  /** Set for a tool limit: which tools it counts. */
  readonly tool: ((tool: ToolDeclaration) => boolean) | undefined;
  readonly failClosed: boolean;
  /** This rule's member of `RateLimit-Policy`. */
  readonly policy: string;
  /** "10 calls per minute per principal". */
  readonly description: string;
}

/** What the middleware runs on. */
export interface Normalized {
  readonly rules: readonly Rule[];
  readonly store: LimitStore | undefined;
  readonly costs: ReadonlyMap<string, number>;
  readonly clientIp: ((ctx: MiddlewareContext) => string | undefined) | undefined;
  readonly headers: boolean;
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const KEYS = new Set(['principal', 'client', 'ip', 'server']);
const DAY_MS = 86_400_000;

/**
 * Validates `options`; throws a `LimitsPluginError` (`LIMITS_OPTIONS_INVALID`) listing every problem, each
 * naming its path (`rules[1].rate.limit`).
 */
export function normalizeOptions(options: LimitsPluginOptions): Normalized {
  const issues = new OptionIssues('limitsPlugin()');
  if (options === null || typeof options !== 'object') {
    issues.expect('options', 'an object { rules, store?, costs?, clientIp?, headers? }', options);
    issues.throwNow(optionsError);
  }
  const { rules, store, costs, clientIp, headers } = options;
  const normalized: Rule[] = [];
  if (!Array.isArray(rules)) issues.expect('rules', 'a list of rules', rules);
  else {
    const names = new Map<string, number>();
    rules.forEach((rule, index) => {
      const made = normalizeRule(rule, `rules[${index}]`, issues);
      if (made === undefined) return;
      const first = names.get(made.name);
      if (first !== undefined) {
        issues.add(`rules[${index}].name "${made.name}" is already the name of rules[${first}]`);
      } else names.set(made.name, index);
      normalized.push(made);
    });
  }
  if (
    store !== undefined &&
    (typeof store?.consume !== 'function' || typeof (store as LimitStore).release !== 'function')
  ) {
    issues.expect('store', 'a LimitStore (with consume() and release())', store);
  }
  const weights = new Map<string, number>();
  if (costs !== undefined) {
    if (costs === null || typeof costs !== 'object' || Array.isArray(costs)) {
      issues.expect('costs', 'an object { toolName: units }', costs);
    } else {
      for (const [tool, cost] of Object.entries(costs)) {
        if (!Number.isSafeInteger(cost) || cost < 1) {
          issues.expect(`costs["${tool}"]`, 'a whole number ≥ 1', cost);
        } else weights.set(tool, cost);
      }
    }
  }
  if (clientIp !== undefined && typeof clientIp !== 'function') {
    issues.expect('clientIp', 'a function (ctx) => string | undefined', clientIp);
  }
  if (headers !== undefined && typeof headers !== 'boolean') issues.expect('headers', 'a boolean', headers);
  issues.throwIfAny(optionsError);
  return { rules: normalized, store, costs: weights, clientIp, headers: headers ?? true };
}

function normalizeRule(rule: LimitRule, where: string, issues: OptionIssues): Rule | undefined {
  if (rule === null || typeof rule !== 'object') {
    issues.expect(where, 'an object { name, key, rate | quota | concurrency, … }', rule);
    return undefined;
  }
  const before = issues.count;
  const { name, key, methods, tools, annotations, onStoreError } = rule;
  if (typeof name !== 'string' || !NAME.test(name)) {
    issues.expect(`${where}.name`, '1–64 of A-Z a-z 0-9 _ . -', name);
  }
  if (typeof key !== 'function' && !KEYS.has(key as string)) {
    issues.expect(`${where}.key`, "'principal', 'client', 'ip', 'server' or a function", key);
  }
  const limits = (['rate', 'quota', 'concurrency'] as const).filter((kind) => rule[kind] !== undefined);
  if (limits.length !== 1) {
    issues.add(
      `${where} must have exactly one of rate, quota and concurrency (got ${limits.length === 0 ? 'none' : limits.join(' and ')})`,
    );
  }
  const kind = limits[0] ?? 'rate';
  const spec = (rule[kind] ?? {}) as { limit?: unknown; windowMs?: unknown };
  const limit = spec.limit;
  if (limits.length > 0 && (!Number.isSafeInteger(limit) || (limit as number) < 1)) {
    issues.expect(`${where}.${kind}.limit`, 'a whole number ≥ 1', limit);
  }
  let windowMs = 0;
  if (kind !== 'concurrency' && limits.length > 0) {
    const given = spec.windowMs ?? (kind === 'quota' ? DAY_MS : undefined);
    if (!Number.isSafeInteger(given) || (given as number) < 1) {
      issues.expect(`${where}.${kind}.windowMs`, 'a whole number of ms ≥ 1', given);
    } else windowMs = given as number;
  }
  let methodSet: ReadonlySet<string> | '*' = '*';
  const forTools = tools !== undefined || annotations !== undefined;
  if (methods !== undefined) {
    const list = typeof methods === 'string' ? [methods] : methods;
    if (!Array.isArray(list) || list.length === 0 || list.some((m) => typeof m !== 'string' || m === '')) {
      issues.expect(`${where}.methods`, "a method, a non-empty list of methods, or '*'", methods);
    } else if (!list.includes('*')) {
      const never = list.filter((method) => NEVER_LIMITED.has(method));
      if (never.length > 0) {
        issues.add(
          `${where}.methods: ${never.join(', ')} cannot be limited (a client must always be able to find the server)`,
        );
      }
      if (forTools && list.some((method) => method !== 'tools/call')) {
        issues.add(`${where}.methods: a rule with tools or annotations counts tools/call only; drop methods`);
      }
      methodSet = new Set(list);
    }
  }
  if (forTools) methodSet = new Set(['tools/call']);
  const tool = toolTest(tools, annotations, where, issues);
  if (onStoreError !== undefined && onStoreError !== 'open' && onStoreError !== 'closed') {
    issues.expect(`${where}.onStoreError`, "'open' or 'closed'", onStoreError);
  }
  if (issues.count > before) return undefined;
  const count = limit as number;
  return {
    name,
    kind,
    limit: count,
    windowMs,
    key,
    methods: methodSet,
    tool,
    failClosed: onStoreError === 'closed',
    policy: policyOf(name, kind, count, windowMs),
    description: describeRule(kind, count, windowMs, key, tool !== undefined),
  };
}

/** The test a tool must pass for a tool limit; `undefined` for a rule that is not one. */
function toolTest(
  tools: LimitRule['tools'],
  annotations: LimitRule['annotations'],
  where: string,
  issues: OptionIssues,
): ((tool: ToolDeclaration) => boolean) | undefined {
  let byName: ((tool: ToolDeclaration) => boolean) | undefined;
  if (typeof tools === 'function') byName = tools;
  else if (tools !== undefined) {
    const list = typeof tools === 'string' ? [tools] : tools;
    if (!Array.isArray(list) || list.length === 0 || list.some((t) => typeof t !== 'string' || t === '')) {
      issues.expect(
        `${where}.tools`,
        'a tool name, a non-empty list of names, or a function (tool) => boolean',
        tools,
      );
    } else {
      const names = new Set(list);
      byName = (tool) => names.has(tool.name);
    }
  }
  let byAnnotations: ((tool: ToolDeclaration) => boolean) | undefined;
  if (annotations !== undefined) {
    if (annotations === null || typeof annotations !== 'object' || Array.isArray(annotations)) {
      issues.expect(`${where}.annotations`, 'an object such as { readOnlyHint: false }', annotations);
    } else {
      const wanted = Object.entries(annotations);
      byAnnotations = (tool) => {
        const declared = (tool.annotations ?? {}) as Readonly<Record<string, unknown>>;
        return wanted.every(([name, value]) => declared[name] === value);
      };
    }
  }
  if (byName !== undefined && byAnnotations !== undefined) {
    const [first, second] = [byName, byAnnotations];
    return (tool) => first(tool) && second(tool);
  }
  return byName ?? byAnnotations;
}

/** The rule's member of `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers): `"name";q=10;w=60`. */
function policyOf(name: string, kind: Rule['kind'], limit: number, windowMs: number): string {
  if (kind === 'concurrency') return `"${name}";q=${limit};qu="concurrent-requests"`;
  return `"${name}";q=${limit};w=${Math.max(1, Math.ceil(windowMs / 1_000))}`;
}

function describeRule(
  kind: Rule['kind'],
  limit: number,
  windowMs: number,
  key: LimitKey,
  forTools: boolean,
): string {
  const whose =
    key === 'principal'
      ? 'per principal'
      : key === 'client'
        ? 'per OAuth client'
        : key === 'ip'
          ? 'per IP address'
          : key === 'server'
            ? 'for the whole server'
            : 'per caller';
  const what = forTools ? (limit === 1 ? 'call' : 'calls') : limit === 1 ? 'request' : 'requests';
  if (kind === 'concurrency') return `at most ${limit} ${what} in flight ${whose}`;
  const span = spanOf(windowMs);
  // Quotas' windows start at 00:00 UTC; a rate's day is any 24 hours.
  return `${limit} ${what} per ${kind === 'quota' && windowMs % DAY_MS === 0 ? `${span} (UTC)` : span} ${whose}`;
}

/** `60_000` → `minute`, `90_000` → `90 s`. */
export function spanOf(ms: number): string {
  const named: Record<number, string> = {
    1000: 'second',
    60000: 'minute',
    3600000: 'hour',
    [DAY_MS]: 'day',
  };
  const name = named[ms];
  if (name !== undefined) return name;
  if (ms % DAY_MS === 0) return `${ms / DAY_MS} days`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return ms % 1_000 === 0 ? `${ms / 1_000} s` : `${ms} ms`;
}
