// How a refused request reaches the client, the same in both protocol eras: a tool limit refuses a
// `tools/call` with a tool error the model reads (HTTP 200), any other limit with a JSON-RPC error that
// HTTP answers 429 (503 when the store is unreachable) with `Retry-After`, before the handler runs.
import { RequestRefusedError } from '@pier/core';
import type { Rule } from './options.js';

/** The JSON-RPC error code of a refusal: in the implementation-defined server range, unused by MCP. */
export const LIMIT_EXCEEDED = -32029;

/** The `_meta` key of a tool error result that a limit refused, and the shape of its value. */
export const LIMIT_META_KEY = 'dev.pier/limit';

/** Why a request was refused, as the error's `data` (and a tool error's `_meta['dev.pier/limit']`) carry it. */
export interface LimitRefusal {
  /** The rule's name. */
  readonly limit: string;
  readonly kind: Rule['kind'];
  /** `exceeded`: over the limit; `unavailable`: the store is unreachable and the rule fails closed. */
  readonly reason: 'exceeded' | 'unavailable';
  /** Whole seconds to wait before trying again (also the `Retry-After` header). */
  readonly retryAfter: number;
  /** When the limit is whole again, ISO 8601 (rate and quota limits that were exceeded). */
  readonly resetAt?: string;
}

/** A refusal: what to throw (HTTP 429/503 and a JSON-RPC error) or return (a tool error result). */
export function refuse(
  rule: Rule,
  reason: LimitRefusal['reason'],
  retryAfterMs: number,
  resetMs: number,
  asTool: boolean,
  headers: Record<string, string>,
): Record<string, unknown> {
  const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1_000));
  const data: LimitRefusal = {
    limit: rule.name,
    kind: rule.kind,
    reason,
    retryAfter,
    ...(reason === 'exceeded' &&
      rule.kind !== 'concurrency' && { resetAt: new Date(Date.now() + resetMs).toISOString() }),
  };
  const message = messageOf(rule, reason, retryAfter);
  headers['retry-after'] = String(retryAfter);
  if (asTool) {
    return {
      content: [{ type: 'text', text: message }],
      isError: true,
      _meta: { [LIMIT_META_KEY]: data },
    };
  }
  throw new RequestRefusedError(message, {
    rpcCode: LIMIT_EXCEEDED,
    data,
    http: { status: reason === 'exceeded' ? 429 : 503, headers },
  });
}

/** `Rate limit "add-note" reached (10 calls per minute per principal); retry in 6 s.` */
export function messageOf(rule: Rule, reason: LimitRefusal['reason'], retryAfter: number): string {
  const retry = `retry in ${waitOf(retryAfter)}`;
  if (reason === 'unavailable') {
    return `Limit "${rule.name}" (${rule.description}) cannot be checked right now; ${retry}.`;
  }
  const what = rule.kind === 'rate' ? 'Rate limit' : rule.kind === 'quota' ? 'Quota' : 'Concurrency limit';
  return `${what} "${rule.name}" reached (${rule.description}); ${retry}.`;
}

/** `6 s`, `4 min`, `3 h 20 min`. */
function waitOf(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}
