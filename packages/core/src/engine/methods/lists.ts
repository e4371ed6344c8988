// What the list methods share: pagination over a prepared list, and how schema issues read in messages.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Call } from '../call.js';
import type { JsonObject } from '../wire.js';

/**
 * One page of a list (`tools/list`, `prompts/list`, `resources/templates/list`): the whole list unless the
 * server pages its lists (`pageSize`), then `pageSize` items and a `nextCursor` while more remain. A cursor
 * the server did not issue is refused with `-32602`.
 */
export function listPage(call: Call, key: string, items: readonly JsonObject[]): JsonObject {
  const pageSize = call.engine.pageSize;
  const cursor = call.params.cursor;
  if (pageSize === undefined) return { [key]: items };
  let start = 0;
  if (cursor !== undefined) {
    start = typeof cursor === 'string' && /^\d{1,9}$/.test(cursor) ? Number(cursor) : -1;
    if (start < 0 || start > items.length) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor: ${JSON.stringify(cursor)}`);
    }
  }
  const end = start + pageSize;
  return end < items.length
    ? { [key]: items.slice(start, end), nextCursor: String(end) }
    : { [key]: items.slice(start) };
}

/** Standard Schema issues as one line: `path: message`, comma-separated (the SDK's wording). */
export function formatIssues(
  issues: readonly { readonly message: string; readonly path?: readonly unknown[] | undefined }[],
): string {
  return issues
    .map((issue) => {
      const path = issue.path;
      if (path === undefined || path.length === 0) return issue.message;
      const keys = path.map((part) =>
        String(typeof part === 'object' && part !== null ? (part as { key: unknown }).key : part),
      );
      return `${keys.join('.')}: ${issue.message}`;
    })
    .join(', ');
}
