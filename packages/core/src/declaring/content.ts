// Content blocks for tool results and prompt messages, built from what a program has at hand (bytes),
// checked where they are built rather than by the client that receives them.
import type { AudioContent, EmbeddedResource, ImageContent } from '@modelcontextprotocol/server';
import { base64 as encodeBase64 } from '../engine/runtime.js';
import { describeValue, PierError } from '../errors.js';

/** Bytes, or a string already in base64. */
export type BinaryData = Uint8Array | string;

/** The resource an {@link embeddedResource} carries: text, or binary data (`blob`). */
export type EmbeddedResourceContents =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string; readonly blob?: never }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: BinaryData; readonly text?: never };

/**
 * An image content block (`{ type: 'image', data, mimeType }`) for a tool result or a prompt message.
 *
 * @example
 * ```ts
 * return { content: [imageContent(await readFile('chart.png'), 'image/png')] };
 * ```
 */
export function imageContent(data: BinaryData, mimeType: string): ImageContent {
  return {
    type: 'image',
    data: base64('imageContent', 'data', data),
    mimeType: mime('imageContent', mimeType),
  };
}

/** An audio content block (`{ type: 'audio', data, mimeType }`), such as `audio/wav`. */
export function audioContent(data: BinaryData, mimeType: string): AudioContent {
  return {
    type: 'audio',
    data: base64('audioContent', 'data', data),
    mimeType: mime('audioContent', mimeType),
  };
}

/**
 * An embedded resource content block (`{ type: 'resource', resource }`): the contents of a resource
 * inlined in a tool result or a prompt message, as text or as a base64 `blob`.
 *
 * @example
 * ```ts
 * embeddedResource({ uri: 'notes://42', mimeType: 'text/markdown', text: '# Groceries' })
 * ```
 */
export function embeddedResource(contents: EmbeddedResourceContents): EmbeddedResource {
  const where = 'embeddedResource';
  if (typeof contents !== 'object' || contents === null) {
    throw invalid(where, 'contents', 'an object { uri, mimeType?, text | blob }', contents);
  }
  const { uri, mimeType, text, blob } = contents as { [K in 'uri' | 'mimeType' | 'text' | 'blob']?: unknown };
  if (typeof uri !== 'string' || !URL.canParse(uri)) throw invalid(where, 'uri', 'an absolute URI', uri);
  const typed = mimeType === undefined ? {} : { mimeType: mime(where, mimeType) };
  if (typeof text === 'string' && blob === undefined) {
    return { type: 'resource', resource: { uri, ...typed, text } };
  }
  if (blob !== undefined && text === undefined) {
    return { type: 'resource', resource: { uri, ...typed, blob: base64(where, 'blob', blob as BinaryData) } };
  }
  throw invalid(where, 'text', 'a string, or left out when there is a blob (one of the two)', text);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function base64(where: string, field: string, data: BinaryData): string {
  if (data instanceof Uint8Array) {
    return encodeBase64(data);
  }
  if (typeof data !== 'string' || !BASE64.test(data)) {
    throw invalid(where, field, 'bytes (a Uint8Array or Buffer) or a base64 string', data);
  }
  return data;
}

function mime(where: string, mimeType: unknown): string {
  if (typeof mimeType !== 'string' || !/^[\w.+-]+\/[\w.+-]+/.test(mimeType)) {
    throw invalid(where, 'mimeType', 'a media type such as image/png', mimeType);
  }
  return mimeType;
}

function invalid(where: string, field: string, expected: string, got: unknown): PierError {
  return new PierError(
    'OPTIONS_INVALID',
    `${where}: "${field}" must be ${expected} (got ${describeValue(got)})`,
  );
}
