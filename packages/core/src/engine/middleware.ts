// Middleware: `use(match, (ctx, next) => …)`, composed per method once, when the server is created. A method
// no middleware matches runs its handler directly: declaring none costs nothing.
import type { AuthInfo, ClientCapabilities, Implementation } from '@modelcontextprotocol/server';
import type { PromptDeclaration, ResourceDeclaration, ToolDeclaration } from '../declaring/model.js';
import { PierError } from '../errors.js';
import type { Logger } from '../logger.js';
import { isThenable, type JsonObject, type RequestId } from './wire.js';

/** What a request names, resolved before middleware runs. */
export type Target =
  | {
      readonly kind: 'tool';
      readonly name: string;
      readonly declaration: ToolDeclaration;
    }
  | {
      readonly kind: 'prompt';
      readonly name: string;
      readonly declaration: PromptDeclaration;
    }
  | {
      readonly kind: 'resource';
      readonly name: string;
      readonly declaration: ResourceDeclaration;
    };

/**
 * A request as middleware sees it (`use(match, (ctx, next) => …)`): read what it is and who sends it, change
 * its arguments, set HTTP response headers, share state with later middleware.
 */
export interface MiddlewareContext {
  /** The JSON-RPC method, such as `tools/call`. */
  readonly method: string;
  readonly id: RequestId;
  /** `modern` for 2026-07-28, `legacy` for the 2025 revisions. */
  readonly era: 'modern' | 'legacy';
  /** The protocol revision the request is served at. */
  readonly protocolVersion: string;
  /** The request's params as sent. */
  readonly params: Readonly<JsonObject>;
  /** What the request names: the tool or prompt name, the resource URI; `undefined` for other methods. */
  readonly name: string | undefined;
  /** `tools/call` and `prompts/get`: the arguments the handler will get. Assign to change them. */
  arguments: JsonObject | undefined;
  /**
   * The tool, prompt or resource (template) the request names, when the server has it: `tools/call`,
   * `prompts/get`, `resources/read`, and `completion/complete` (its reference).
   */
  readonly target: Target | undefined;
  /** Who is calling, when an HTTP authenticator ran. */
  readonly auth: AuthInfo | undefined;
  /** A stable key for the caller (the authenticator's `principalOf`, else the client id); `''` when anonymous. */
  readonly principal: string;
  /** The 2025 HTTP session, when there is one. */
  readonly sessionId: string | undefined;
  /** `http`, `stdio` or another transport's name. */
  readonly transport: string;
  /**
   * The IP address of the peer that sent the request over HTTP (the socket's: behind a proxy or a load
   * balancer, the proxy's); `undefined` elsewhere (stdio).
   */
  readonly remoteAddress: string | undefined;
  /** The client, as the request (2026-07-28) or `initialize` (2025) describes it. */
  readonly client: {
    readonly info: Implementation | undefined;
    readonly capabilities: ClientCapabilities | undefined;
  };
  /** Aborted when the client cancels the request or goes away. */
  readonly signal: AbortSignal;
  /** The server's logger. */
  readonly logger: Logger;
  /** A request header over HTTP (case-insensitive); `undefined` elsewhere. */
  header(name: string): string | undefined;
  /** Sets a header on the HTTP response (ignored off HTTP, and once the response is streaming). */
  setHeader(name: string, value: string): void;
  /** Per-request storage shared by every middleware of the request. */
  readonly state: Map<unknown, unknown>;
  /**
   * The declaration behind one entry of a list result (`tools/list`, `prompts/list`, `resources/list`,
   * `resources/templates/list`): to filter a list by what each entry is. `undefined` for an entry the
   * server did not declare itself (a skill, a plugin's own).
   */
  declarationOf(entry: Readonly<Record<string, unknown>>): Target | undefined;
}

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
export function compose<C extends MiddlewareContext>(
  method: string,
  entries: readonly MiddlewareEntry[],
  run: (call: C) => JsonObject | Promise<JsonObject>,
): (call: C) => JsonObject | Promise<JsonObject> {
  const chain = entries.filter((entry) => matches(entry, method)).map((entry) => entry.middleware);
  if (chain.length === 0) return run;
  return (call) => dispatch(new Onion(chain, call, run), 0);
}

/**
 * One request's way through its chain. No async function, and per level no closure but `next`: a
 * middleware that hands back what `next()` gave it (`(ctx, next) => next()`) adds nothing more, and the
 * handler's own promise comes back up such a chain as it is; one that returns a promise of its own is
 * followed with one `then`. What `next()` settled with is kept for such a level only (its middleware may
 * only have awaited `next()`), and forgotten when a level fails.
 */
class Onion<C extends MiddlewareContext> {
  /** The deepest level started: `next()` may start each level once. */
  started = -1;
  /** The promise the last `next()` returned. */
  forwarded: Promise<JsonObject> | undefined = undefined;
  /** The last result a level settled with, and that level (-1: none, or a failure since). */
  result: JsonObject | undefined = undefined;
  resultLevel = -1;

  constructor(
    readonly chain: readonly Middleware[],
    readonly call: C,
    readonly run: (call: C) => JsonObject | Promise<JsonObject>,
  ) {}

  failed(error: unknown): Promise<never> {
    this.resultLevel = -1;
    return Promise.reject(error);
  }
}

function dispatch<C extends MiddlewareContext>(onion: Onion<C>, level: number): Promise<JsonObject> {
  if (level <= onion.started) {
    return onion.failed(new PierError('OPTIONS_INVALID', 'middleware: next() called more than once'));
  }
  onion.started = level;
  const chain = onion.chain;
  if (level === chain.length) {
    try {
      // `next()` is a promise to every middleware, whether the method answered at once or not.
      return Promise.resolve(onion.run(onion.call));
    } catch (error) {
      return onion.failed(error);
    }
  }
  // Set when this level's middleware returned a promise of its own: what `next()` settles with is kept.
  let own = false;
  let forwardedHere: Promise<JsonObject> | undefined;
  const next = () => {
    const forwarded = dispatch(onion, level + 1);
    onion.forwarded = forwarded;
    forwardedHere = forwarded;
    if (own) keep(onion, level + 1, forwarded);
    return forwarded;
  };
  let returned: unknown;
  try {
    returned = (chain[level] as Middleware)(onion.call, next);
    // `return next()`: the next level's promise is this level's answer as it is.
    if (returned === onion.forwarded && returned !== undefined) return returned as Promise<JsonObject>;
    if (!isThenable(returned)) return Promise.resolve(settled(onion, level, returned));
  } catch (error) {
    return onion.failed(error);
  }
  // Its `then` is registered after the middleware's own wait on `next()`, and runs before this level's.
  own = true;
  if (forwardedHere !== undefined) keep(onion, level + 1, forwardedHere);
  return Promise.resolve(returned).then(
    (value) => settled(onion, level, value),
    (error: unknown) => onion.failed(error),
  );
}

/** Keeps what `forwarded` (level `level`'s promise) settles with, for a level above that only awaited it. */
function keep<C extends MiddlewareContext>(
  onion: Onion<C>,
  level: number,
  forwarded: Promise<JsonObject>,
): void {
  forwarded.then(
    (result) => kept(onion, level, result),
    () => {
      onion.resultLevel = -1;
    },
  );
}

function kept<C extends MiddlewareContext>(onion: Onion<C>, level: number, result: JsonObject): JsonObject {
  onion.result = result;
  onion.resultLevel = level;
  return result;
}

/** What a level's middleware ended with: the result it returned, or the one its `next()` settled with. */
function settled<C extends MiddlewareContext>(onion: Onion<C>, level: number, returned: unknown): JsonObject {
  if (returned !== undefined && returned !== null) {
    if (typeof returned !== 'object' || Array.isArray(returned)) {
      onion.resultLevel = -1;
      throw new TypeError(
        `a middleware of ${onion.call.method} returned ${typeof returned}, not a result object`,
      );
    }
    return kept(onion, level, returned as JsonObject);
  }
  // `await next()` without `return`: the result passes through unchanged — only one settled further in
  // with no failure since (a level between that failed, its failure swallowed here, leaves none).
  if (onion.resultLevel > level) return kept(onion, level, onion.result as JsonObject);
  onion.resultLevel = -1;
  throw new TypeError(`a middleware of ${onion.call.method} neither returned a result nor called next()`);
}
