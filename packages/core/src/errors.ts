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
 * | `CLIENT_REQUEST_UNAVAILABLE` | `ctx.sample`/`ctx.elicit` when the client cannot be asked (capability not declared, stateless HTTP, 2026-07-28 era) |
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
  | 'CLIENT_REQUEST_UNAVAILABLE';

/**
 * The one error class of `@pier/core` (each Pier package has its own, all with a stable string `code`). `code` is stable across versions; `message` is for humans.
 *
 * @example
 * ```ts
 * try { await server.listen({ transport: 'streamable-http' }); }
 * catch (error) { if (error instanceof PierError && error.code === 'TRANSPORT_NOT_INSTALLED') … }
 * ```
 */
export class PierError extends Error {
  override readonly name = 'PierError';
  readonly code: PierErrorCode;

  constructor(code: PierErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
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
