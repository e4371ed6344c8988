import { FIXED_MASK, maskSecret } from './mask-secret.js';

/**
 * Where a value came from: `'default'` (the schema's default), `'unset'` (nothing given, the schema
 * allows it), the variable name (`'API_KEY'`), or the flag as written (`'--api-key'`, `'--no-debug'`).
 */
export type ConfigSource = string;

/** One resolved value, as `parseConfig` hands it over. */
export interface ResolvedValue {
  readonly key: string;
  readonly value: unknown;
  readonly source: ConfigSource;
  readonly secret: boolean;
}

// Node's util.inspect looks this symbol up; using the registered symbol avoids importing node:util.
const INSPECT = Symbol.for('nodejs.util.inspect.custom');
const resolved = new WeakMap<object, readonly ResolvedValue[]>();

/**
 * Builds the frozen configuration object. Reading a property gives the real value; printing the
 * object (`util.inspect`, `console.log`, `JSON.stringify`, `String`) shows secrets masked.
 */
export function createConfig(values: readonly ResolvedValue[]): object {
  const config = {};
  for (const { key, value } of values) {
    Object.defineProperty(config, key, { value: deepFreeze(value), enumerable: true });
  }
  const masked = () => maskedCopy(values);
  Object.defineProperties(config, {
    toJSON: { value: masked },
    toString: { value: () => JSON.stringify(masked()) },
    [INSPECT]: { value: masked },
  });
  resolved.set(config, values);
  return Object.freeze(config);
}

/** The values behind a configuration object, or undefined for any other object. */
export function resolvedValues(config: object): readonly ResolvedValue[] | undefined {
  return resolved.get(config);
}

/** What a secret looks like wherever the configuration is printed. */
export function maskValue(value: unknown): unknown {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? maskSecret(value) : FIXED_MASK;
}

function maskedCopy(values: readonly ResolvedValue[]): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const { key, value, secret } of values) {
    Object.defineProperty(copy, key, { value: secret ? maskValue(value) : value, enumerable: true });
  }
  return copy;
}

/** Freezes plain objects and arrays that zod produced; class instances (URL, Date…) are left alone. */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  const prototype = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}
