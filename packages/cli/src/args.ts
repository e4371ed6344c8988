// Flags of one command: node's parseArgs (strict), with usage errors that name the flag and suggest the
// closest known one. Everything after a bare `--` is a command line of its own (a server to spawn).
import { parseArgs } from 'node:util';
import { usage } from './errors.js';

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
}

/** Parses `argv` for `command`; throws a usage error (exit 2) naming what is wrong. */
export function parseFlags<F extends Record<string, FlagSpec>>(
  command: string,
  argv: readonly string[],
  spec: F,
): Parsed<F> {
  const split = argv.indexOf('--');
  const head = split === -1 ? [...argv] : argv.slice(0, split);
  const tail = split === -1 ? undefined : argv.slice(split + 1);
  try {
    const { values, positionals } = parseArgs({
      args: head,
      options: { ...spec, help: { type: 'boolean', short: 'h' } } as never,
      allowPositionals: true,
      strict: true,
    });
    return { flags: values as Parsed<F>['flags'], positionals, tail };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(message)?.[1];
    if (unknown !== undefined) {
      const name = unknown.replace(/^-+/, '').split('=')[0] ?? '';
      const near = closest(name, Object.keys(spec));
      throw usage(
        `${command}: unknown option ${unknown}${near === undefined ? '' : ` (did you mean --${near}?)`}; see pier ${command} --help`,
      );
    }
    const missing = /Option '(?:-\w, )?(--[\w-]+) <value>' argument missing/.exec(message)?.[1];
    if (missing !== undefined) throw usage(`${command}: ${missing} needs a value`);
    throw usage(`${command}: ${message.split('\n')[0]}`);
  }
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

/** `K=V` pairs (repeatable flag) as a record; a usage error names a pair without `=`. */
export function keyValues(
  command: string,
  flag: string,
  pairs: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw usage(`${command}: ${flag} takes KEY=VALUE (got "${pair.slice(0, 40)}")`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** A whole number of milliseconds from a flag, or a usage error naming the flag. */
export function milliseconds(
  command: string,
  flag: string,
  value: string | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) <= 0) {
    throw usage(`${command}: --${flag} must be a whole number of milliseconds > 0 (got "${value}")`);
  }
  return Number(value);
}
