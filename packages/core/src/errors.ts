/**
 * Stable codes carried by every {@link PierError}; branch on them instead of parsing messages.
 *
 * | code | raised by |
 * |---|---|
 * | `DECLARATION_INVALID` | a decorator, `defineServer`/`defineTool`/…, `createServer`, or a plugin's `add*` call with a bad field |
 * | `DUPLICATE_NAME` | two tools, resources or prompts with one name (or two resources with one URI) |
 * | `ROUTE_CONFLICT` | two HTTP routes with the same method and path |
 * | `PLUGIN_INVALID` | a plugin that is not `{ name, setup }`, that throws in `setup`, or registers after `setup` |
 * | `OPTIONS_INVALID` | bad `createServer`, `listen` or `close` options; bad arguments to `imageContent`, `notifyResourceUpdated`, `onClose`… |
 * | `UNKNOWN_TRANSPORT` | `listen({ transport })` with a name Pier does not know |
 * | `TRANSPORT_NOT_INSTALLED` | `listen({ transport: 'streamable-http' })` without `@pier/transport-http` installed |
 * | `TRANSPORT_UNAVAILABLE` | `listen()` asks for stdio where the runtime has no process streams (Cloudflare Workers) |
 * | `ALREADY_LISTENING` | a second `listen()` on one server |
 * | `SERVER_CLOSED` | `listen()` after `close()`; `onClose()` once the close hooks started running |
 * | `CLIENT_REQUEST_UNAVAILABLE` | `ctx.sample`/`ctx.elicit`/`ctx.listRoots` when the client cannot be asked: it did not declare the capability (then the error is a {@link MissingClientCapabilityError}), or nothing reaches it (a stateless 2025-era HTTP request) |
 * | `REQUEST_REFUSED` | a middleware refused a request ({@link RequestRefusedError}) |
 */
export type PierErrorCode =
  | 'DECLARATION_INVALID'
  | 'DUPLICATE_NAME'
  | 'ROUTE_CONFLICT'
  | 'PLUGIN_INVALID'
  | 'OPTIONS_INVALID'
  | 'UNKNOWN_TRANSPORT'
  | 'TRANSPORT_NOT_INSTALLED'
  | 'TRANSPORT_UNAVAILABLE'
  | 'ALREADY_LISTENING'
  | 'SERVER_CLOSED'
  | 'CLIENT_REQUEST_UNAVAILABLE'
  | 'REQUEST_REFUSED';

/** The brand {@link PierError.isInstance} looks for; one symbol for every copy, through the global registry. */
const BRAND: unique symbol = Symbol.for('@pier/core.PierError') as never;

/** Options of every Pier error. */
export interface PierErrorOptions {
  readonly cause?: unknown;
  /** Every problem found, for an error about options that lists them (see {@link OptionIssues}). */
  readonly issues?: readonly string[];
}

/**
 * The error base of every Pier package: a stable string `code` to branch on (each package's codes are in
 * a table in its README), a `message` for humans that never holds a secret, and `issues` listing every
 * problem of a bad set of options. Each package extends it with its own class and codes
 * (`HttpTransportError`, `AuthPluginError`…); core's own errors use the codes of {@link PierErrorCode}.
 *
 * @example
 * ```ts
 * try { await server.listen({ transport: 'streamable-http' }); }
 * catch (error) { if (PierError.isInstance(error) && error.code === 'TRANSPORT_NOT_INSTALLED') … }
 * ```
 */
export class PierError<Code extends string = PierErrorCode> extends Error {
  override readonly name: string = 'PierError';
  readonly code: Code;
  /** Every problem found, for an error about options; empty otherwise. */
  readonly issues: readonly string[];

  constructor(code: Code, message: string, options?: PierErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.issues = Object.freeze([...(options?.issues ?? [])]);
  }

  /**
   * Whether `value` is an error of any Pier package, from any copy of it (two installed copies of a
   * package each have their own class, so `instanceof` can be false for an error the other copy threw).
   */
  static isInstance(value: unknown): value is PierError<string> {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [BRAND]?: unknown })[BRAND] === true &&
      typeof (value as { code?: unknown }).code === 'string'
    );
  }

  /** The brand {@link PierError.isInstance} looks for; shared by every copy through the global symbol registry. */
  get [BRAND](): true {
    return true;
  }
}

/**
 * A handler asked the client for something it did not declare it can do (`sampling`, `elicitation`,
 * `roots`). Catch it to do without; left uncaught, the client gets the protocol's missing-capability
 * error (`-32021`, HTTP 400) on 2026-07-28, and a tool error naming the capability on 2025 revisions.
 */
export class MissingClientCapabilityError extends PierError {
  override readonly name = 'MissingClientCapabilityError';
  /** What the client would have to declare, as the spec's `requiredCapabilities` names it, e.g. `{ sampling: {} }`. */
  readonly requiredCapabilities: Readonly<Record<string, object>>;

  constructor(requiredCapabilities: Readonly<Record<string, object>>, message: string) {
    // The code of every "cannot ask the client" error, as before this class existed; the class tells this
    // case apart and carries what is missing.
    super('CLIENT_REQUEST_UNAVAILABLE', message);
    this.requiredCapabilities = requiredCapabilities;
  }
}

/** Options of {@link RequestRefusedError}: how the refusal reaches the client. */
export interface RefusalOptions {
  /** The JSON-RPC error code. Default `-32600` (invalid request). */
  readonly rpcCode?: number;
  /** The JSON-RPC error's `data`. */
  readonly data?: unknown;
  /**
   * Over HTTP, while the response has not started: answer with this status and these headers, and, when
   * `body` is given, with that JSON body instead of the JSON-RPC error (an OAuth error, say).
   */
  readonly http?: {
    readonly status: number;
    readonly headers?: Readonly<Record<string, string>>;
    readonly body?: unknown;
  };
  /** `tools/call` only: answer with a tool error result (`isError: true`, the message as text) instead. */
  readonly asToolError?: boolean;
}

/**
 * Refuses a request from a middleware, before or after `next()`: the client gets a JSON-RPC error with
 * `rpcCode` (or, for `tools/call` with `asToolError`, a tool error result), the same in both protocol eras,
 * and over HTTP the `http` status and headers when the response has not started.
 *
 * @example
 * ```ts
 * server.use('tools/call', async (ctx, next) => {
 *   if (ctx.auth === undefined) throw new RequestRefusedError('sign in first', { http: { status: 401 } });
 *   return next();
 * });
 * ```
 */
export class RequestRefusedError extends PierError {
  override readonly name = 'RequestRefusedError';
  readonly rpcCode: number;
  readonly data: unknown;
  readonly http: RefusalOptions['http'];
  readonly asToolError: boolean;

  constructor(message: string, options: RefusalOptions = {}) {
    super('REQUEST_REFUSED', message);
    this.rpcCode = options.rpcCode ?? -32600;
    this.data = options.data;
    this.http = options.http;
    this.asToolError = options.asToolError === true;
  }
}

/** The message of anything thrown, without its stack. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return String(error);
  } catch {
    return 'unknown error';
  }
}

/**
 * Collects the problems of a set of options, then throws them all at once: how every Pier package checks
 * what it is given, so that a user fixes everything in one go. Each problem names the option's path
 * (`checks[2].timeoutMs`) and describes the bad value with {@link describeValue}'s secret-safe rules.
 *
 * @example
 * ```ts
 * const issues = new OptionIssues('myPlugin()');
 * if (typeof options.url !== 'string') issues.expect('url', 'a URL such as https://api.example.com', options.url);
 * issues.throwIfAny((message, list) => new PierError('OPTIONS_INVALID', message, { issues: list }));
 * ```
 */
export class OptionIssues {
  readonly #where: string;
  readonly #list: string[] = [];

  /** @param where what was given the options, as messages start: `healthPlugin`, `authPlugin()`… */
  constructor(where: string) {
    this.#where = where;
  }

  /** Records that `path` must be `expected`, with the value it had. */
  expect(path: string, expected: string, got: unknown): void {
    this.#list.push(`${path} must be ${expected} (got ${describeValue(got)})`);
  }

  /** Records a problem in words of your own (name the option in it). */
  add(issue: string): void {
    this.#list.push(issue);
  }

  /** How many problems were recorded. */
  get count(): number {
    return this.#list.length;
  }

  /**
   * Throws what `create` makes of the summary (`where: problem`, or `where: N problems:` and one line per
   * problem) and the list, when any problem was recorded.
   */
  throwIfAny(create: (message: string, issues: readonly string[]) => Error): void {
    if (this.#list.length > 0) this.throwNow(create);
  }

  /** Throws now, with every problem recorded so far: for when nothing more can be checked. */
  throwNow(create: (message: string, issues: readonly string[]) => Error): never {
    const list = Object.freeze(this.#list.length > 0 ? [...this.#list] : ['invalid options']);
    throw create(summarize(this.#where, list), list);
  }
}

/** Core's error for a set of options with problems (`OPTIONS_INVALID`, every problem in `issues`). */
export function optionsError(message: string, issues: readonly string[]): PierError {
  return new PierError('OPTIONS_INVALID', message, { issues });
}

/** `where: problem`, or `where: N problems:` followed by one indented line per problem. */
export function summarize(where: string, issues: readonly string[]): string {
  return issues.length === 1
    ? `${where}: ${issues[0]}`
    : `${where}: ${issues.length} problems:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`;
}

/**
 * Throws a {@link PierError} (`DECLARATION_INVALID` unless `code` says otherwise) naming `field` and what it
 * must be: a declaration is code, so its first problem stops it, where options report every problem at once
 * ({@link OptionIssues}). The message has the same shape either way.
 */
export function fail(
  where: string,
  field: string,
  expected: string,
  got: unknown,
  code: PierErrorCode = 'DECLARATION_INVALID',
): never {
  const issue = `"${field}" must be ${expected} (got ${describeValue(got)})`;
  throw new PierError(code, summarize(where, [issue]), { issues: [issue] });
}

/**
 * A bad value as an error message shows it, the same way in every Pier package: its kind and, for short
 * plain values, the value itself. Never a secret: a string longer than 40 characters (a token, a key, a
 * connection string) shows only its length, and a URL's user info is masked.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const masked = value.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#@]*@/, '$1***@');
    return masked.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(masked);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : `an array of ${value.length}`;
  if (typeof value === 'function') return 'a function';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Node's longest timer delay; a longer one fires at once. Every timeout option is bounded by it. */
export const MAX_TIMER_MS = 2_147_483_647;
