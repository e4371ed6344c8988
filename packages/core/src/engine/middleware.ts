// Middleware: `use(match, (ctx, next) => …)`, composed per method once, when the server is created. A method
// no middleware matches runs its handler directly: declaring none costs nothing.
import { PierError } from '../errors.js';
import type { Call, MiddlewareContext } from './call.js';
import type { JsonObject } from './wire.js';

/**
 * Runs around the handling of matching requests, Hono/Koa style: call `next()` to run what comes after
 * (later middleware, then the method) and return its result, changed or not; throw a
 * `RequestRefusedError` to refuse the request; or return a result without calling `next()`.
 */
export type Middleware = (ctx: MiddlewareContext, next: () => Promise<JsonObject>) => unknown;

/** Which requests a middleware runs for: a method, several, or `*` for every request. */
export type MiddlewareMatch = string | readonly string[];

/** A middleware and where it applies. */
export interface MiddlewareEntry {
  readonly match: MiddlewareMatch;
  readonly middleware: Middleware;
  /** Who registered it, for error messages: `the server`, `plugin "auth"`. */
  readonly source: string;
}

/** Checks `use(match, middleware)` arguments; `where` starts the error message. */
export function middlewareEntry(
  match: unknown,
  middleware: unknown,
  source: string,
  where: string,
): MiddlewareEntry {
  const valid =
    (typeof match === 'string' && match !== '') ||
    (Array.isArray(match) &&
      match.length > 0 &&
      match.every((item) => typeof item === 'string' && item !== ''));
  if (!valid) {
    throw new PierError(
      'OPTIONS_INVALID',
      `${where}: match must be a method such as 'tools/call', a non-empty list of methods, or '*'`,
    );
  }
  if (typeof middleware !== 'function') {
    throw new PierError('OPTIONS_INVALID', `${where}: middleware must be a function (ctx, next) => …`);
  }
  return Object.freeze({
    match: Array.isArray(match) ? Object.freeze([...match]) : match,
    middleware: middleware as Middleware,
    source,
  });
}

function matches(entry: MiddlewareEntry, method: string): boolean {
  const { match } = entry;
  if (typeof match === 'string') return match === '*' || match === method;
  return match.includes(method) || match.includes('*');
}

/** The method's handler wrapped in every middleware that matches it, outermost first. */
export function compose(
  method: string,
  entries: readonly MiddlewareEntry[],
  run: (call: Call) => Promise<JsonObject>,
): (call: Call) => Promise<JsonObject> {
  const chain = entries.filter((entry) => matches(entry, method)).map((entry) => entry.middleware);
  if (chain.length === 0) return run;
  return (call) => dispatch(chain, 0, call, run, { index: -1 });
}

async function dispatch(
  chain: readonly Middleware[],
  position: number,
  call: Call,
  run: (call: Call) => Promise<JsonObject>,
  progress: { index: number },
): Promise<JsonObject> {
  if (position <= progress.index)
    throw new PierError('OPTIONS_INVALID', 'middleware: next() called more than once');
  progress.index = position;
  if (position === chain.length) return run(call);
  const middleware = chain[position] as Middleware;
  let nextResult: JsonObject | undefined;
  const next = async () => {
    nextResult = await dispatch(chain, position + 1, call, run, progress);
    return nextResult;
  };
  const returned = await middleware(call, next);
  if (returned !== undefined && returned !== null) {
    if (typeof returned !== 'object' || Array.isArray(returned)) {
      throw new TypeError(`a middleware of ${call.method} returned ${typeof returned}, not a result object`);
    }
    return returned as JsonObject;
  }
  // `await next()` without `return`: the result passes through unchanged.
  if (nextResult !== undefined) return nextResult;
  throw new TypeError(`a middleware of ${call.method} neither returned a result nor called next()`);
}
