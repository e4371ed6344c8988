// `_meta` and `icons`, as a declaration carries them: checked once, where they are declared, against the
// specification's rules (basic/index §`_meta` and §`icons`), with a message naming the declaration and the key.

import { isPlainObject } from '../engine/wire.js';
import { fail } from '../errors.js';

/** `_meta` of a declaration: keys of an optional reverse-DNS prefix and a name, JSON values. */
export type Meta = Readonly<Record<string, unknown>>;

/** An icon a client may show beside a server, tool, resource or prompt (SEP-973). */
export interface Icon {
  /** An `https:` (or `http:`) URL, or a `data:` URI with the image inline. */
  readonly src: string;
  /** Such as `image/png`, when the URL does not say. */
  readonly mimeType?: string;
  /** Sizes it suits, such as `48x48`, or `any` for SVG. */
  readonly sizes?: readonly string[];
  /** The background it is drawn for. */
  readonly theme?: 'light' | 'dark';
}

// A prefix is dot-separated labels and a slash; a label starts with a letter and ends with a letter or digit.
const LABEL = '[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
// A name, unless empty, starts and ends with an alphanumeric, with `-`, `_` and `.` inside.
const META_KEY = new RegExp(
  `^(?:(${LABEL}(?:\\.${LABEL})*)/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`,
);

/** Keys the protocol itself sets on messages: a declaration that sets them would contradict it. */
const PROTOCOL_KEYS: ReadonlySet<string> = new Set([
  'progressToken',
  'io.modelcontextprotocol/protocolVersion',
  'io.modelcontextprotocol/clientInfo',
  'io.modelcontextprotocol/clientCapabilities',
  'io.modelcontextprotocol/logLevel',
  'io.modelcontextprotocol/subscriptionId',
  'io.modelcontextprotocol/related-task',
  'traceparent',
  'tracestate',
  'baggage',
]);

/**
 * Checks a declaration's `_meta`: a plain object of JSON values whose keys follow the specification's
 * format, none of them a key the protocol reserves for itself. A prefix whose second label is
 * `modelcontextprotocol` or `mcp` is reserved for MCP: only the official extensions' own
 * (`io.modelcontextprotocol/…`, `io.modelcontextprotocol.<extension>/…`) are accepted.
 */
export function optionalMeta(fields: Readonly<Record<string, unknown>>, where: string): { _meta?: Meta } {
  const meta = fields._meta;
  if (meta === undefined) return {};
  if (!isPlainObject(meta)) fail(where, '_meta', 'a plain object of JSON values', meta);
  for (const key of Object.keys(meta)) {
    const field = `_meta["${key}"]`;
    const match = META_KEY.exec(key);
    if (key === '' || match === null) {
      fail(
        where,
        field,
        'a key of an optional reverse-DNS prefix and a name, such as "com.example/priority" or "priority"',
        key,
      );
    }
    if (PROTOCOL_KEYS.has(key)) fail(where, field, 'a key the protocol does not reserve for itself', key);
    const labels = match[1]?.split('.');
    const second = labels?.[1]?.toLowerCase();
    if (
      labels !== undefined &&
      (second === 'modelcontextprotocol' || second === 'mcp') &&
      !(labels[0] === 'io' && second === 'modelcontextprotocol')
    ) {
      fail(where, field, 'a prefix of your own: this one is reserved for MCP', key);
    }
    const problem = notJson(meta[key], field);
    if (problem !== undefined) fail(where, problem.field, 'a JSON value', problem.value);
  }
  return { _meta: Object.freeze({ ...meta }) };
}

const THEMES = ['light', 'dark'] as const;
const SIZE = /^(?:any|\d+x\d+)$/;

/** Checks a declaration's `icons`: each one an `http:`, `https:` or `data:` URI with optional type, sizes and theme. */
export function optionalIcons(
  fields: Readonly<Record<string, unknown>>,
  where: string,
): { icons?: readonly Icon[] } {
  const icons = fields.icons;
  if (icons === undefined) return {};
  if (!Array.isArray(icons)) fail(where, 'icons', 'an array of { src, mimeType?, sizes?, theme? }', icons);
  return {
    icons: Object.freeze(
      icons.map((icon: unknown, i) => {
        const field = `icons[${i}]`;
        if (!isPlainObject(icon)) fail(where, field, 'an object { src, mimeType?, sizes?, theme? }', icon);
        const { src, mimeType, sizes, theme } = icon;
        if (typeof src !== 'string' || !/^(?:https?|data):/i.test(src) || !URL.canParse(src)) {
          fail(where, `${field}.src`, 'an https:, http: or data: URI', src);
        }
        if (mimeType !== undefined && (typeof mimeType !== 'string' || !mimeType.includes('/'))) {
          fail(where, `${field}.mimeType`, 'a MIME type such as image/png', mimeType);
        }
        if (
          sizes !== undefined &&
          (!Array.isArray(sizes) || !sizes.every((size) => typeof size === 'string' && SIZE.test(size)))
        ) {
          fail(where, `${field}.sizes`, 'an array of sizes such as "48x48" or "any"', sizes);
        }
        if (theme !== undefined && !(THEMES as readonly unknown[]).includes(theme)) {
          fail(where, `${field}.theme`, "'light' or 'dark'", theme);
        }
        const extra = Object.keys(icon).find((key) => !['src', 'mimeType', 'sizes', 'theme'].includes(key));
        if (extra !== undefined)
          fail(
            where,
            `${field}.${extra}`,
            'left out: an icon has src, mimeType, sizes and theme',
            icon[extra],
          );
        return Object.freeze({ ...icon }) as unknown as Icon;
      }),
    ),
  };
}

/** `icons` and `_meta` of a declaration, as listings and results carry them. */
export function listedMeta(declaration: { readonly icons?: readonly Icon[]; readonly _meta?: Meta }): {
  icons?: readonly Icon[];
  _meta?: Meta;
} {
  return {
    ...(declaration.icons !== undefined && { icons: declaration.icons }),
    ...(declaration._meta !== undefined && { _meta: declaration._meta }),
  };
}

/** The first place in `value` that is not JSON (a function, `undefined`, a class instance, a non-finite number). */
function notJson(value: unknown, field: string, depth = 0): { field: string; value: unknown } | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { field, value };
  if (depth > 32) return { field, value };
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const problem = notJson(item, `${field}[${i}]`, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const problem = notJson(item, `${field}.${key}`, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  return { field, value };
}
