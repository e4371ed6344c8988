import type { ConfigIssue } from './issues.js';
import { type OptionToken, type PositionalToken, tokenizeArgs } from './parse-args.js';
import { isFlagKind, kebabCase, type OptionEntry } from './spec.js';
import { normalizeFlag, suggestFlag } from './suggest.js';

/** What to do with options the spec does not define and with stray positional arguments. */
export type UnknownPolicy = 'error' | 'warn' | 'ignore';

/** A value from the command line, with the flag as written. */
export interface ArgvValue {
  readonly value: string | boolean;
  readonly source: string;
}

/** The command line, read against the spec. */
export interface ArgvReading {
  /** By spec key; the last occurrence of a flag wins. */
  readonly values: ReadonlyMap<string, ArgvValue>;
  readonly issues: readonly ConfigIssue[];
  readonly warnings: readonly ConfigIssue[];
  readonly positionals: readonly string[];
  readonly helpRequested: boolean;
  readonly versionRequested: boolean;
}

/**
 * Reads argv with the spec's boolean flags in mind. Unknown options and positionals are reported by
 * name or position only: the text that came with them may be a secret given to a mistyped flag.
 */
export function readArgv(
  argv: readonly string[],
  entries: readonly OptionEntry[],
  options: { readonly unknown?: UnknownPolicy; readonly version?: string | undefined },
): ArgvReading {
  const byFlag = new Map(entries.flatMap((entry) => (entry.flag === undefined ? [] : [[entry.flag, entry]])));
  const builtins = new Set<string>();
  if (!byFlag.has('help')) builtins.add('help');
  if (options.version !== undefined && !byFlag.has('version')) builtins.add('version');
  const isBoolean = (name: string) => {
    const entry = byFlag.get(name);
    return entry === undefined ? builtins.has(name) : isFlagKind(entry.info);
  };
  const { tokens, positionals } = tokenizeArgs(argv, isBoolean);

  const values = new Map<string, ArgvValue>();
  const issues: ConfigIssue[] = [];
  const strays: { index: number; issue: ConfigIssue }[] = [];
  const requested = new Set<string>();
  const known = knownFlags(entries, builtins);
  const envOnly = entries.filter((entry) => entry.flag === undefined && entry.env !== undefined);
  for (const token of tokens) {
    const entry = byFlag.get(token.name);
    if (entry !== undefined) {
      const written = token.form === 'negated' ? `--no-${token.name}` : `--${token.name}`;
      values.set(entry.key, { value: token.value, source: written });
    } else if (builtins.has(token.name)) {
      if (token.value !== false && token.value !== 'false') requested.add(token.name);
    } else {
      const negated = negatedWithValue(token, byFlag);
      if (negated !== undefined) issues.push(negated);
      else strays.push({ index: token.index, issue: unknownOption(token, known, envOnly) });
    }
  }
  for (const positional of positionals) {
    strays.push({ index: positional.index, issue: unexpectedArgument(positional) });
  }
  const ordered = strays.sort((a, b) => a.index - b.index).map((stray) => stray.issue);

  const policy = options.unknown ?? 'error';
  return {
    values,
    issues: policy === 'error' ? [...issues, ...ordered] : issues,
    warnings: policy === 'warn' ? ordered.map((issue) => ({ ...issue, severity: 'warning' })) : [],
    positionals: positionals.map((positional) => positional.text),
    helpRequested: requested.has('help'),
    versionRequested: requested.has('version'),
  };
}

function knownFlags(entries: readonly OptionEntry[], builtins: ReadonlySet<string>): string[] {
  const flags = entries.flatMap((entry) => {
    if (entry.flag === undefined) return [];
    return isFlagKind(entry.info) ? [entry.flag, `no-${entry.flag}`] : [entry.flag];
  });
  return [...flags, ...builtins].map((flag) => `--${flag}`);
}

function unknownOption(
  token: OptionToken,
  known: readonly string[],
  envOnly: readonly OptionEntry[],
): ConfigIssue {
  const base = { code: 'unknown_option', severity: 'error', source: `argv[${token.index}]` } as const;
  const space = token.name.search(/\s/);
  if (space !== -1) {
    // "--port 8080" as one entry of a client's args list: show the option part only.
    const flag = `--${token.name.slice(0, space)}`;
    const message = `one argument holds a space; give the option and its value as two entries: "${flag}", "<value>"`;
    return { ...base, path: flag, message };
  }
  const flag = `--${token.name}`;
  const variable = envOnly.find((entry) =>
    [kebabCase(entry.key), entry.env ?? ''].some((name) => normalizeFlag(name) === normalizeFlag(token.name)),
  );
  if (variable !== undefined) {
    return {
      ...base,
      path: flag,
      message: `unknown option; ${variable.key} is read from the variable ${variable.env} only`,
    };
  }
  const suggestion = suggestFlag(flag, known);
  const message =
    suggestion === undefined
      ? 'unknown option; see --help for the options'
      : `unknown option; did you mean ${suggestion}?`;
  return { ...base, path: flag, message };
}

/** `--no-debug=true`: a negation takes no value. */
function negatedWithValue(
  token: OptionToken,
  byFlag: ReadonlyMap<string, OptionEntry>,
): ConfigIssue | undefined {
  if (token.form !== 'inline' || !token.name.startsWith('no-')) return undefined;
  const entry = byFlag.get(token.name.slice(3));
  if (entry === undefined || !isFlagKind(entry.info)) return undefined;
  return {
    code: 'invalid_boolean',
    severity: 'error',
    path: entry.key,
    source: `--${token.name}`,
    message: `--${token.name} takes no value; write --${token.name}, or --${entry.flag}=false`,
  };
}

function unexpectedArgument(positional: PositionalToken): ConfigIssue {
  const flag = positional.afterBoolean;
  const message =
    flag === undefined
      ? 'unexpected argument; options are written --name value'
      : `unexpected argument after ${flag}, which takes ${flag.startsWith('--no-') ? 'no value' : 'only true or false as its value'}`;
  return {
    code: 'unexpected_argument',
    severity: 'error',
    path: 'argv',
    source: `argv[${positional.index}]`,
    message,
  };
}
