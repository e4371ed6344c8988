// Which rules count a request, worked out once per method (and per tool for `tools/call`) and kept: the
// methods a request can reach the middleware with are the server's own, and its tools are fixed.
import type { MiddlewareContext } from '@pier/core';
import { NEVER_LIMITED, type Rule } from './options.js';

/** The rules one kind of request meets, with its `RateLimit-Policy` value. */
export interface Plan {
  readonly rules: readonly Rule[];
  /** `RateLimit-Policy`; `''` when none of the rules reports a policy. */
  readonly policy: string;
  /** Per rule, the start of its `RateLimit` member: `"add-note";r=`. */
  readonly prefixes: readonly string[];
  /** Units a request costs in rate and quota rules. */
  readonly cost: number;
  readonly holds: boolean;
  /**
   * Per rule, the last request's key value and the store key made of it: a caller who calls again (the
   * common case) reuses the string, whose hash the store's map has already computed.
   */
  readonly lastValues: (string | undefined)[];
  readonly lastKeys: string[];
}

const NONE: Plan = {
  rules: [],
  policy: '',
  prefixes: [],
  cost: 1,
  holds: false,
  lastValues: [],
  lastKeys: [],
};

/** Finds the plan of each request, computing each kind once. */
export class Planner {
  readonly #rules: readonly Rule[];
  readonly #costs: ReadonlyMap<string, number>;
  readonly #byMethod = new Map<string, Plan>();
  readonly #byTool = new Map<string, Plan>();
  #lastTool: string | undefined;
  #lastPlan: Plan = NONE;

  constructor(rules: readonly Rule[], costs: ReadonlyMap<string, number>) {
    this.#rules = rules;
    this.#costs = costs;
  }

  planOf(ctx: MiddlewareContext): Plan {
    const target = ctx.target;
    if (ctx.method === 'tools/call' && target?.kind === 'tool') {
      // The tool called last (the same name string each time): no map lookup.
      if (target.name === this.#lastTool) return this.#lastPlan;
      let plan = this.#byTool.get(target.name);
      if (plan === undefined) {
        const declaration = target.declaration;
        plan = planOf(
          this.#rules.filter(
            (rule) => counts(rule, 'tools/call') && (rule.tool === undefined || rule.tool(declaration)),
          ),
          this.#costs.get(target.name) ?? 1,
        );
        this.#byTool.set(target.name, plan);
      }
      this.#lastTool = target.name;
      this.#lastPlan = plan;
      return plan;
    }
    let plan = this.#byMethod.get(ctx.method);
    if (plan === undefined) {
      // A tool rule counts named tools only: a call of an unknown tool (answered -32602) is not one.
      plan = planOf(
        this.#rules.filter((rule) => rule.tool === undefined && counts(rule, ctx.method)),
        1,
      );
      this.#byMethod.set(ctx.method, plan);
    }
    return plan;
  }

  /** The methods some rule counts, for `use(match, …)`: `'*'` when a rule counts every request. */
  get match(): string | string[] {
    const methods = new Set<string>();
    for (const rule of this.#rules) {
      if (rule.methods === '*') return '*';
      for (const method of rule.methods) methods.add(method);
    }
    return [...methods];
  }
}

function counts(rule: Rule, method: string): boolean {
  if (NEVER_LIMITED.has(method)) return false;
  return rule.methods === '*' || rule.methods.has(method);
}

function planOf(rules: readonly Rule[], cost: number): Plan {
  if (rules.length === 0) return NONE;
  return {
    rules,
    policy: rules.map((rule) => rule.policy).join(', '),
    prefixes: rules.map((rule) => `"${rule.name}";r=`),
    cost,
    holds: rules.some((rule) => rule.kind === 'concurrency'),
    lastValues: rules.map(() => undefined),
    lastKeys: rules.map(() => ''),
  };
}
