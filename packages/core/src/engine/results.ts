// What a method returns → what the protocol carries.
import type {
  CallToolResult,
  GetPromptResult,
  PromptMessage,
  ReadResourceResult,
} from '@modelcontextprotocol/server';
import { clientMessage } from './client-errors.js';
import { base64 } from './runtime.js';
import { isPlainObject } from './wire.js';

/** A tool's return value as a `CallToolResult`; see `ToolReturn` for the rules. */
export function toToolResult(value: unknown): CallToolResult {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (value === undefined) return { content: [] };
  if (isCallToolResult(value)) return value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const structuredContent = value as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent };
  }
  return { content: [{ type: 'text', text: JSON.stringify(value) ?? String(value) }] };
}

/**
 * A thrown error as a tool error result: the message only, never the stack, and `Internal error` for a
 * failure of the system underneath (see client-errors.ts; the caller logs the detail).
 */
export function toolErrorResult(error: unknown): CallToolResult {
  return { content: [{ type: 'text', text: clientMessage(error) }], isError: true };
}

/** A resource's return value as a `ReadResourceResult`. */
export function toResourceResult(
  value: unknown,
  uri: string,
  mimeType: string | undefined,
  meta?: Readonly<Record<string, unknown>>,
): ReadResourceResult {
  // The declaration's `_meta` goes on contents Pier builds (hosts read a view's `_meta.ui` there).
  const withMeta = meta === undefined ? {} : { _meta: meta };
  if (typeof value === 'string')
    return { contents: [{ uri, mimeType: mimeType ?? 'text/plain', text: value, ...withMeta }] };
  if (value instanceof Uint8Array) {
    return {
      contents: [{ uri, mimeType: mimeType ?? 'application/octet-stream', blob: base64(value), ...withMeta }],
    };
  }
  if (isPlainObject(value) && Array.isArray(value.contents)) return value as ReadResourceResult;
  return {
    contents: [
      { uri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(value) ?? 'null', ...withMeta },
    ],
  };
}

/** A prompt's return value as a `GetPromptResult`. */
export function toPromptResult(value: unknown, description: string | undefined): GetPromptResult {
  const described = description === undefined ? {} : { description };
  if (typeof value === 'string') {
    return Object.assign({}, described, {
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: value } }],
    });
  }
  if (Array.isArray(value)) return Object.assign({}, described, { messages: value as PromptMessage[] });
  if (isPlainObject(value) && Array.isArray(value.messages)) return value as GetPromptResult;
  return Object.assign({}, described, { messages: [value as PromptMessage] });
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return isPlainObject(value) && Array.isArray(value.content);
}
