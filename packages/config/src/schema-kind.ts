import type { $ZodType } from 'zod/v4/core';

/**
 * How text from argv or the environment becomes the input of a schema:
 * - `boolean`: a JS boolean (`z.boolean()`, `z.coerce.boolean()`); the option is a flag.
 * - `boolean-text`: a flag whose schema parses text itself (`z.stringbool()`).
 * - `integer` / `number`: a JS number parsed strictly from decimal text.
 * - `text`: the text as is (strings, enums, URLs, and anything else: `z.coerce.*`, `z.preprocess`).
 */
export type InputKind = 'boolean' | 'boolean-text' | 'integer' | 'number' | 'text';

/** What `@pier/config` reads from a schema to coerce text, word messages and write help. */
export interface SchemaInfo {
  readonly kind: InputKind;
  /** The allowed values of a `z.enum` or `z.literal`. */
  readonly values?: readonly unknown[];
  /** Set for `z.url()` / `z.string().url()`; `protocol` when the schema restricts it. */
  readonly url?: { readonly protocol?: RegExp };
  /** True when a wrapper supplies a value in place of a missing or invalid one (default, prefault, catch). */
  readonly hasDefault: boolean;
}

// A zod schema's definition, read structurally: the same fields exist in zod (classic) and zod/mini.
interface Def {
  readonly type: string;
  readonly format?: string;
  readonly coerce?: boolean;
  readonly protocol?: RegExp;
  readonly checks?: readonly { readonly _zod: { readonly def: Def } }[];
  readonly innerType?: $ZodType;
  readonly in?: $ZodType;
  readonly out?: $ZodType;
  readonly getter?: () => $ZodType;
  readonly entries?: Record<string, unknown>;
  readonly values?: readonly unknown[];
}

const WRAPPERS = new Set(['optional', 'nullable', 'readonly', 'nonoptional', 'default', 'prefault', 'catch']);
const DEFAULTS = new Set(['default', 'prefault', 'catch']);
const INTEGER_FORMATS = new Set(['safeint', 'int32', 'uint32']);

/**
 * Looks through wrappers (optional, nullable, default, prefault, catch, readonly, lazy) and the input
 * side of pipes to learn what kind of value a schema expects. Never throws on unfamiliar schemas: they
 * get `text`.
 */
export function inspectSchema(schema: $ZodType): SchemaInfo {
  let current: $ZodType = schema;
  let hasDefault = false;
  let outputIsBoolean = false;
  // Depth guard: a lazy schema may refer to itself.
  for (let depth = 0; depth < 64; depth++) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type) && def.innerType !== undefined) {
      hasDefault ||= DEFAULTS.has(def.type);
      current = def.innerType;
    } else if (def.type === 'lazy' && def.getter !== undefined) {
      current = def.getter();
    } else if (def.type === 'pipe' && def.in !== undefined && def.out !== undefined) {
      // A preprocess step receives the raw text; a codec such as z.stringbool() parses text to boolean.
      if (defOf(def.in).type === 'transform') return { kind: 'text', hasDefault };
      outputIsBoolean = defOf(def.out).type === 'boolean';
      current = def.in;
    } else {
      return { ...describeLeaf(def, outputIsBoolean), hasDefault };
    }
  }
  return { kind: 'text', hasDefault };
}

function describeLeaf(def: Def, outputIsBoolean: boolean): Omit<SchemaInfo, 'hasDefault'> {
  switch (def.type) {
    case 'boolean':
      return { kind: 'boolean' };
    case 'number':
      return { kind: isInteger(def) ? 'integer' : 'number' };
    case 'enum':
      return { kind: 'text', values: Object.values(def.entries ?? {}) };
    case 'literal':
      return { kind: 'text', values: def.values ?? [] };
    case 'string': {
      if (outputIsBoolean) return { kind: 'boolean-text' };
      const url = urlFormat(def);
      return url === undefined ? { kind: 'text' } : { kind: 'text', url };
    }
    default:
      return { kind: 'text' };
  }
}

function isInteger(def: Def): boolean {
  if (def.format !== undefined && INTEGER_FORMATS.has(def.format)) return true;
  return (def.checks ?? []).some((check) => INTEGER_FORMATS.has(check._zod.def.format ?? ''));
}

function urlFormat(def: Def): { protocol?: RegExp } | undefined {
  const formats = [def, ...(def.checks ?? []).map((check) => check._zod.def)];
  const url = formats.find((candidate) => candidate.format === 'url');
  if (url === undefined) return undefined;
  return url.protocol === undefined ? {} : { protocol: url.protocol };
}

function defOf(schema: $ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** Is this value a zod 4 schema (classic or mini)? */
export function isZodSchema(value: unknown): value is $ZodType {
  const internals = (value as { _zod?: { def?: { type?: unknown } } } | null)?._zod;
  return typeof internals?.def?.type === 'string';
}
