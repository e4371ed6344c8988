// What a client is told when a handler throws. A handler's own error is its message to the client (a
// tool error the model reads, "no note with id …"); a failure of the system underneath — Node's errno
// errors (ENOENT, EACCES, ECONNREFUSED…) and its internal ERR_* errors, thrown directly or as the cause
// of another — names server paths, addresses and internals, so the client gets "Internal error" and the
// detail stays in the log. Internal: the engine's results (results.ts) and task runs (extensions/tasks.ts)
// map thrown errors through here.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { messageOf } from '../errors.js';

/** What a client is told of a failure of the system underneath a handler. */
export const INTERNAL_ERROR_MESSAGE = 'Internal error';

/** The message a client may see for `error` (a tool error's text, a failed task's `error.message`). */
export function clientMessage(error: unknown): string {
  return isSystemFailure(error) ? INTERNAL_ERROR_MESSAGE : messageOf(error);
}

/**
 * `error` as the SDK may answer it (a JSON-RPC error): a system failure becomes -32603 `Internal error`,
 * anything else is kept (a `ProtocolError` keeps its code, a handler's `Error` its message).
 */
export function clientError(error: unknown): unknown {
  return isSystemFailure(error)
    ? new ProtocolError(ProtocolErrorCode.InternalError, INTERNAL_ERROR_MESSAGE)
    : error;
}

/** Node's error codes: errno names (`ENOENT`, `ECONNREFUSED`) and its own `ERR_*` codes. */
const NODE_CODE = /^(?:E[A-Z0-9]+|ERR_[A-Z0-9_]+)$/;

/** Whether `error`, or an error in its `cause` chain, is a failure of the system (see above). */
export function isSystemFailure(error: unknown): boolean {
  let current = error;
  // Bounded: a cause chain can loop.
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const { code, errno, syscall } = current as { code?: unknown; errno?: unknown; syscall?: unknown };
    if (typeof syscall === 'string' || typeof errno === 'number') return true;
    if (typeof code === 'string' && NODE_CODE.test(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
