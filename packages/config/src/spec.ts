import { z } from 'zod';
import type { $ZodType, output } from 'zod/v4/core';
import { ConfigError } from './config-error.js';
import { inspectSchema, isZodSchema, type SchemaInfo } from './schema-kind.js';

/** How one configuration value is read: its schema and where its text comes from. */
export interface OptionSpec<Schema extends $ZodType = $ZodType> {
  /** Validates the value; its default (`.default(…)`) is the lowest-precedence source. */
  readonly schema: Schema;
  /** The environment variable to read, e.g. `'API_KEY'`. No variable when left out. */
  readonly env?: string;
  /**
   * The flag name without dashes. Left out or `true`: the key in kebab-case (`maxRetries` →
   * `--max-retries`). `false`: no flag, the value comes from the variable (or default) only.
   */
  readonly arg?: string | boolean;
  /** Never printed: masked in inspect/JSON/String and reports, left out of messages. Cannot have a default. */
  readonly secret?: boolean;
  /** One line for `--help`. Falls back to the schema's `.describe(…)` text. */
  readonly description?: string;
}

/** Maps each configuration key to its {@link OptionSpec}. */
export type ConfigSpec = { readonly [key: string]: OptionSpec };

/** The validated configuration a spec describes: each key has its schema's output type. */
export type Config<Spec extends ConfigSpec> = { readonly [Key in keyof Spec]: output<Spec[Key]['schema']> };

/** A spec entry after checking, with what parsing and help need. */
export interface OptionEntry {
  readonly key: string;
  readonly schema: $ZodType;
  readonly info: SchemaInfo;
  readonly env?: string;
  /** The flag name without dashes. */
  readonly flag?: string;
  readonly secret: boolean;
  readonly description?: string;
  /** Present when the schema fills in a missing value. */
  readonly default?: { readonly value: unknown };
  /** Missing is an error: no default and not optional. */
  readonly required: boolean;
}

const FIELDS = new Set(['schema', 'env', 'arg', 'secret', 'description']);
const RESERVED_KEYS = new Set(['toJSON', 'toString']);
const FLAG_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const ENV_NAME = /^[^=\0]+$/;

/**
 * Checks a spec and reads it into entries. Every problem is reported at once in one
 * `CONFIG_SPEC_INVALID` error: these are programming mistakes, caught on the first run.
 */
export function readSpec(spec: ConfigSpec): OptionEntry[] {
  if (spec === null || typeof spec !== 'object') {
    throw new ConfigError('CONFIG_SPEC_INVALID', 'invalid config spec: expected an object of options');
  }
  const problems: string[] = [];
  const entries: OptionEntry[] = [];
  for (const [key, option] of Object.entries(spec)) {
    const entry = readOption(key, option, problems);
    if (entry !== undefined) entries.push(entry);
  }
  checkFlagClashes(entries, problems);
  if (problems.length > 0) {
    throw new ConfigError('CONFIG_SPEC_INVALID', `invalid config spec:\n${problems.join('\n')}`);
  }
  return entries;
}

/** `maxRetries` → `max-retries`, `baseURL` → `base-url`, `log_level` → `log-level`. */
export function kebabCase(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .replace(/[_\s]+/g, '-')
    .toLowerCase();
}

function readOption(key: string, option: OptionSpec, problems: string[]): OptionEntry | undefined {
  const problem = (text: string) => problems.push(`  ${key}: ${text}`);
  if (RESERVED_KEYS.has(key)) problem(`the key "${key}" is reserved (the configuration object defines it)`);
  if (option === null || typeof option !== 'object') {
    problem('expected { schema, env?, arg?, secret?, description? }');
    return undefined;
  }
  for (const field of Object.keys(option)) {
    if (!FIELDS.has(field)) problem(`unknown field "${field}" (allowed: ${[...FIELDS].join(', ')})`);
  }
  if (!isZodSchema(option.schema)) {
    problem('schema must be a zod 4 schema, e.g. z.string()');
    return undefined;
  }
  const { schema, env, arg, secret = false, description } = option;
  if (env !== undefined && (typeof env !== 'string' || !ENV_NAME.test(env))) {
    problem('env must be a variable name such as "API_KEY"');
  }
  const flag = arg === undefined || arg === true ? kebabCase(key) : arg;
  if (flag !== false && (typeof flag !== 'string' || !FLAG_NAME.test(flag))) {
    const hint = typeof flag === 'string' && flag.startsWith('-') ? ' (write it without the dashes)' : '';
    problem(
      `arg must be a flag name such as "api-key"${hint}, true for the default name, or false for no flag`,
    );
  }
  if (typeof secret !== 'boolean') problem('secret must be true or false');
  if (description !== undefined && typeof description !== 'string') problem('description must be text');

  const info = inspectSchema(schema);
  const missing = parseMissing(schema, problem);
  const fallback = missing?.success && missing.data !== undefined ? { value: missing.data } : undefined;
  if (secret === true && (info.hasDefault || fallback !== undefined)) {
    problem('a secret cannot have a default; remove .default(…) and set it through its variable or flag');
  }
  if (env === undefined && flag === false && missing?.success === false) {
    problem('a required option needs a variable (env) or a flag (arg), or a default');
  }
  const text = description ?? z.globalRegistry.get(schema)?.description;
  return {
    key,
    schema,
    info,
    secret: secret === true,
    required: missing?.success === false,
    ...(typeof env === 'string' ? { env } : {}),
    ...(typeof flag === 'string' ? { flag } : {}),
    ...(typeof text === 'string' ? { description: text } : {}),
    ...(fallback === undefined ? {} : { default: fallback }),
  };
}

/** What the schema makes of a missing value: its default, undefined when optional, or a failure. */
function parseMissing(schema: $ZodType, problem: (text: string) => void) {
  try {
    return z.safeParse(schema, undefined);
  } catch {
    problem('the schema must validate synchronously (async refinements and transforms are not supported)');
    return undefined;
  }
}

function checkFlagClashes(entries: readonly OptionEntry[], problems: string[]): void {
  const owners = new Map<string, string>();
  const claim = (flag: string, key: string) => {
    const owner = owners.get(flag);
    if (owner === undefined || owner === key) {
      owners.set(flag, key);
    } else {
      problems.push(`  ${key}: the flag --${flag} is also used by ${owner}`);
    }
  };
  for (const entry of entries) {
    if (entry.flag === undefined) continue;
    claim(entry.flag, entry.key);
    if (isFlagKind(entry.info)) claim(`no-${entry.flag}`, entry.key);
  }
}

/** Boolean options are flags: bare `--name` is true, `--no-name` false. */
export function isFlagKind(info: SchemaInfo): boolean {
  return info.kind === 'boolean' || info.kind === 'boolean-text';
}
