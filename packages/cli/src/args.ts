// Flags of one command, read with node's parseArgs (its tokens), with every problem gathered — an unknown
// flag (and the closest known one), a flag without its value, a value given to a switch — so that one
// usage error names them all. Everything after a bare `--` is a command line of its own (a server to spawn).
import { parseArgs } from 'node:util';
import { UsageIssues } from './errors.js';

export interface FlagSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
}

export interface Parsed<F extends Record<string, FlagSpec>> {
  readonly flags: { help?: boolean } & {
    [K in keyof F]?: F[K]['type'] extends 'boolean'
      ? boolean
      : F[K]['multiple'] extends true
        ? string[]
        : string;
  };
  readonly positionals: string[];
  /** The words after `--`, or `undefined` when there was no `--`. */
  readonly tail: string[] | undefined;
  /**
   * The problems found so far: the command adds its own checks, then calls `throwIfAny()` before it does
   * anything (with `--help`, it prints its help instead, whatever else is wrong).
   */
  readonly issues: UsageIssues;
}

/** Parses `argv` for `command`, recording every problem in the returned `issues` (never throws). */
export function parseFlags<F extends Record<string, FlagSpec>>(
  command: string,
  argv: readonly string[],
  spec: F,
): Parsed<F> {
  const split = argv.indexOf('--');
  const head = split === -1 ? [...argv] : argv.slice(0, split);
  const tail = split === -1 ? undefined : argv.slice(split + 1);
  const issues = new UsageIssues(command);
  const { tokens } = parseArgs({
    args: head,
    options: spec as never,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const flags: Record<string, boolean | string | string[]> = {};
  const positionals: string[] = [];
  // After a misspelt flag that looks like one taking a value (`--nmae weather`), the next word is its
  // value, not an argument: it is left out, so that it is not reported a second time as a stray word.
  let valueOfUnknown = false;
  for (const token of tokens) {
    const swallow = valueOfUnknown;
    valueOfUnknown = false;
    if (token.kind === 'positional') {
      if (!swallow) positionals.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    if (token.name === 'help' || token.name === 'h') {
      flags.help = true;
      continue;
    }
    const name =
      token.name in spec ? token.name : Object.keys(spec).find((key) => spec[key]?.short === token.name);
    const flag = name === undefined ? undefined : spec[name];
    if (name === undefined || flag === undefined) {
      const near = closest(token.name, Object.keys(spec));
      issues.add(`unknown option ${token.rawName}${near === undefined ? '' : ` (did you mean --${near}?)`}`, {
        help: true,
      });
      valueOfUnknown = near !== undefined && spec[near]?.type === 'string' && token.value === undefined;
      continue;
    }
    if (flag.type === 'boolean') {
      if (token.value !== undefined) issues.add(`--${name} takes no value (got --${name}=…)`);
      else flags[name] = true;
      continue;
    }
    // A string flag: its value is the next word (or after `=`); a next word that is itself a flag means
    // the value was forgotten (`--era --json`), unless given as `--era=--json`.
    if (token.value === undefined || (token.inlineValue !== true && token.value.startsWith('-'))) {
      issues.add(`--${name} needs a value`);
      continue;
    }
    const before = flags[name];
    flags[name] =
      flag.multiple === true ? [...(Array.isArray(before) ? before : []), token.value] : token.value;
  }
  return { flags: flags as Parsed<F>['flags'], positionals, tail, issues };
}

/** The known word within two edits of `word`, if one is. */
export function closest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const kept = row[j] ?? 0;
      row[j] = Math.min((row[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = kept;
    }
  }
  return row[b.length] ?? 0;
}

/**
 * `K=V` pairs (a repeatable flag) as a record; a pair without a name before `=` is recorded in `issues`
 * (by its position: its value may be a secret).
 */
export function keyValues(
  issues: UsageIssues,
  flag: string,
  pairs: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) issues.add(`${flag} takes KEY=VALUE (got ${at === 0 ? 'no KEY before "="' : 'no "="'})`);
    else out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** A whole number of milliseconds from `--flag`, `fallback` when absent or (recorded in `issues`) bad. */
export function milliseconds(
  issues: UsageIssues,
  flag: string,
  value: string | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) <= 0 || Number(value) > 2_147_483_647) {
    issues.add(
      `--${flag} must be a whole number of milliseconds, 1 to 2147483647 (got "${value.slice(0, 20)}")`,
    );
    return fallback;
  }
  return Number(value);
}
