import { z } from 'zod';
import { type Channel, coerce } from './coerce.js';
import { ConfigError } from './config-error.js';
import { createConfig, type ResolvedValue } from './config-object.js';
import { type ConfigIssue, fromZodIssues, type IssueContext, scrubSecrets } from './issues.js';
import { maskSecret } from './mask-secret.js';
import { type ArgvValue, readArgv, type UnknownPolicy } from './read-argv.js';
import { type Config, type ConfigSpec, type OptionEntry, readSpec } from './spec.js';

/** Inputs of {@link parseConfig}; each defaults to the running process's own. */
export interface ParseConfigOptions {
  /** The arguments, without node and the script: defaults to `process.argv.slice(2)`. */
  readonly argv?: readonly string[];
  /** The environment: defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Unknown options and stray positional arguments: `'error'` (default), `'warn'` or `'ignore'`. */
  readonly unknown?: UnknownPolicy;
  /** The program's version. When given, `--version` is a known flag (see `versionRequested`). */
  readonly version?: string;
}

/** What both outcomes of {@link parseConfig} carry. */
interface ParseConfigOutcome {
  /** Problems that do not stop the program (an ambiguous boolean variable, unknown options under `'warn'`). */
  readonly warnings: readonly ConfigIssue[];
  /** `--help` was given. */
  readonly helpRequested: boolean;
  /** `--version` was given and a version was passed in the options. */
  readonly versionRequested: boolean;
}

/** The outcome of {@link parseConfig}: the configuration, or every issue found. */
export type ParseConfigResult<Spec extends ConfigSpec> =
  | (ParseConfigOutcome & {
      readonly ok: true;
      readonly config: Config<Spec>;
      /** Arguments that are not options (only reachable with `unknown: 'warn'` or `'ignore'`). */
      readonly positionals: readonly string[];
    })
  | (ParseConfigOutcome & { readonly ok: false; readonly issues: readonly ConfigIssue[] });

/**
 * Reads argv and the environment against a spec, like `loadConfig`, but returns the outcome instead
 * of printing and exiting. Throws only for a wrong spec (`ConfigError` with `CONFIG_SPEC_INVALID`).
 *
 * @example
 * const result = parseConfig({ port: { schema: z.number().int(), env: 'PORT' } }, { argv: [], env: { PORT: '80' } });
 * if (result.ok) result.config.port; // 80
 */
export function parseConfig<const Spec extends ConfigSpec>(
  spec: Spec,
  options: ParseConfigOptions = {},
): ParseConfigResult<Spec> {
  return parseEntries(readSpec(spec), options) as ParseConfigResult<Spec>;
}

/** {@link parseConfig} on a spec already read (loadConfig also needs the entries, for help). */
export function parseEntries(
  entries: readonly OptionEntry[],
  options: ParseConfigOptions,
): ParseConfigResult<ConfigSpec> {
  const argv = options.argv ?? process.argv.slice(2);
  const env = options.env ?? process.env;
  const reading = readArgv(argv, entries, options);
  const issues: ConfigIssue[] = [...reading.issues];
  const warnings: ConfigIssue[] = [...reading.warnings];
  const secrets: string[] = [];
  const values: ResolvedValue[] = [];

  for (const entry of entries) {
    const fromArgv = reading.values.get(entry.key);
    const fromEnv = entry.env === undefined ? undefined : env[entry.env];
    if (entry.secret) secrets.push(...[fromArgv?.value, fromEnv].filter((text) => typeof text === 'string'));
    const raw = pick(entry, fromArgv, fromEnv);
    const context: IssueContext = {
      key: entry.key,
      source: raw?.source ?? possibleSources(entry),
      secret: entry.secret,
      info: entry.info,
    };
    let input: unknown;
    if (raw !== undefined) {
      const coerced = coerce(raw.value, raw.channel, context);
      if (!coerced.ok) {
        issues.push(coerced.issue);
        continue;
      }
      if (coerced.warning !== undefined) warnings.push(coerced.warning);
      input = coerced.value;
    }
    const result = validate(entry, input);
    if (!result.success) {
      issues.push(...fromZodIssues(context, input, result.error.issues));
      continue;
    }
    const source = raw?.source ?? (result.data === undefined ? 'unset' : 'default');
    values.push({ key: entry.key, value: result.data, source, secret: entry.secret });
  }

  const outcome = {
    warnings: scrubSecrets(warnings, secrets, maskSecret),
    helpRequested: reading.helpRequested,
    versionRequested: reading.versionRequested,
  };
  if (issues.length > 0) return { ...outcome, ok: false, issues: scrubSecrets(issues, secrets, maskSecret) };
  const config = createConfig(values) as Config<ConfigSpec>;
  return { ...outcome, ok: true, config, positionals: reading.positionals };
}

/**
 * Precedence, key by key: command line, then environment, then the schema's default. Empty text
 * counts as not given on both channels (`API_KEY=` is missing, not an empty key).
 */
function pick(
  entry: OptionEntry,
  fromArgv: ArgvValue | undefined,
  fromEnv: string | undefined,
): { value: string | boolean; source: string; channel: Channel } | undefined {
  if (fromArgv !== undefined && fromArgv.value !== '') return { ...fromArgv, channel: 'argv' };
  if (entry.env !== undefined && typeof fromEnv === 'string' && fromEnv !== '') {
    return { value: fromEnv, source: entry.env, channel: 'env' };
  }
  return undefined;
}

/** `API_KEY or --api-key`: where a missing value could have come from. */
function possibleSources(entry: OptionEntry): string {
  const sources = [entry.env, entry.flag === undefined ? undefined : `--${entry.flag}`];
  return sources.filter((source) => source !== undefined).join(' or ') || 'default';
}

function validate(entry: OptionEntry, input: unknown) {
  try {
    return z.safeParse(entry.schema, input);
  } catch (error) {
    // zod throws for async refinements and transforms; anything else is the schema author's own throw.
    if (!(error instanceof z.core.$ZodAsyncError)) throw error;
    throw new ConfigError(
      'CONFIG_SPEC_INVALID',
      `invalid config spec:\n  ${entry.key}: the schema must validate synchronously`,
    );
  }
}
