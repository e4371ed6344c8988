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
  | 'ALREADY_LISTENING'
  | 'SERVER_CLOSED'
  | 'CLIENT_REQUEST_UNAVAILABLE'
  | 'REQUEST_REFUSED';

/**
 * The one error class of `@pier/core` (each Pier package has its own, all with a stable string `code`). `code` is stable across versions; `message` is for humans.
 *
 * @example
 * ```ts
 * try { await server.listen({ transport: 'streamable-http' }); }
 * catch (error) { if (error instanceof PierError && error.code === 'TRANSPORT_NOT_INSTALLED') … }
 * ```
 */
/** The brand {@link PierError.isInstance} looks for; one symbol for every copy, through the global registry. */
const BRAND: unique symbol = Symbol.for('@pier/core.PierError') as never;

export class PierError extends Error {
  override readonly name: string = 'PierError';
  readonly code: PierErrorCode;

  constructor(code: PierErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /**
   * Whether `value` is a `PierError` from any copy of `@pier/core` (two installed copies each have
   * their own class, so `instanceof` can be false for an error the other copy threw).
   */
  static isInstance(value: unknown): value is PierError {
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

/** Throws a {@link PierError} (`DECLARATION_INVALID` unless `code` says otherwise) naming `field` and what it must be. */
export function fail(
  where: string,
  field: string,
  expected: string,
  got: unknown,
  code: PierErrorCode = 'DECLARATION_INVALID',
): never {
  throw new PierError(code, `${where}: "${field}" must be ${expected} (got ${describe(got)})`);
}

/** A short, secret-free description of a bad value for an error message. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string')
    return value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}…` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Node's longest timer delay; a longer one fires at once. Every timeout option is bounded by it. */
export const MAX_TIMER_MS = 2_147_483_647;
