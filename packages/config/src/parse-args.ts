/** Options of {@link parseArgs}. */
export interface ParseArgsOptions {
  /**
   * Names of boolean options (without `--`). A boolean option takes a following `true` or `false`
   * as its value and leaves any other token as a positional; `--no-<name>` sets it to `false`.
   */
  readonly booleans?: Iterable<string>;
}

/** The untyped result of tokenizing an argument list. */
export interface ParsedArgs {
  /**
   * Options by name (without the leading `--`), the last occurrence winning: the text of a valued
   * option, `true` for a bare flag, and for a boolean option `true` or `false`.
   */
  readonly options: Readonly<Record<string, string | boolean>>;
  /** Tokens that are not options or option values, in order (everything after `--` included). */
  readonly positionals: readonly string[];
}

/**
 * Tokenizes `argv` the way MCP clients pass arguments: `--name value`, `--name=value`, and a bare
 * `--name` (last, or followed by another `--` token) is `true`. `--` ends the options. A value may
 * start with a single dash (`--offset -5`). Names listed in `booleans` follow the boolean rules.
 *
 * @example
 * parseArgs(['--port', '8080', '--debug']);
 * // { options: { port: '8080', debug: true }, positionals: [] }
 */
export function parseArgs(argv: readonly string[], options: ParseArgsOptions = {}): ParsedArgs {
  const booleans = new Set(options.booleans ?? []);
  const { tokens, positionals } = tokenizeArgs(argv, (name) => booleans.has(name));
  const parsed: Record<string, string | boolean> = Object.create(null);
  for (const token of tokens) {
    const isBoolean = booleans.has(token.name);
    parsed[token.name] =
      isBoolean && (token.value === 'true' || token.value === 'false') ? token.value === 'true' : token.value;
  }
  return { options: parsed, positionals: positionals.map((positional) => positional.text) };
}

/** How an option token got its value. */
export type OptionForm = 'inline' | 'next' | 'bare' | 'negated';

/** One option as written in argv. */
export interface OptionToken {
  /** Index in argv of the `--name` token. */
  readonly index: number;
  /** The name without `--` (for `--no-debug`, the negated name `debug`). */
  readonly name: string;
  /** The value text, `true` for a bare flag, `false` for a negated boolean. */
  readonly value: string | boolean;
  readonly form: OptionForm;
}

/** A token that is neither an option nor an option's value. */
export interface PositionalToken {
  readonly index: number;
  readonly text: string;
  /** The option just before it (as written) when that option is a boolean that declined it as a value. */
  readonly afterBoolean?: string;
}

/** Spec-aware tokenizing shared by {@link parseArgs} and `parseConfig`. */
export function tokenizeArgs(
  argv: readonly string[],
  isBoolean: (name: string) => boolean,
): { tokens: OptionToken[]; positionals: PositionalToken[] } {
  const tokens: OptionToken[] = [];
  const positionals: PositionalToken[] = [];
  let declinedBy: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const text = String(argv[index]);
    const afterBoolean = declinedBy;
    declinedBy = undefined;
    if (text === '--') {
      for (let rest = index + 1; rest < argv.length; rest++) {
        positionals.push({ index: rest, text: String(argv[rest]) });
      }
      break;
    }
    if (!text.startsWith('--')) {
      positionals.push(afterBoolean === undefined ? { index, text } : { index, text, afterBoolean });
      continue;
    }
    const eq = text.indexOf('=');
    if (eq !== -1) {
      tokens.push({ index, name: text.slice(2, eq), value: text.slice(eq + 1), form: 'inline' });
      continue;
    }
    const name = text.slice(2);
    const next = argv[index + 1];
    if (isBoolean(name)) {
      if (next === 'true' || next === 'false') {
        tokens.push({ index, name, value: next, form: 'next' });
        index++;
      } else {
        tokens.push({ index, name, value: true, form: 'bare' });
        declinedBy = text;
      }
    } else if (name.startsWith('no-') && isBoolean(name.slice(3))) {
      tokens.push({ index, name: name.slice(3), value: false, form: 'negated' });
      declinedBy = text;
    } else if (next !== undefined && !String(next).startsWith('--')) {
      tokens.push({ index, name, value: String(next), form: 'next' });
      index++;
    } else {
      tokens.push({ index, name, value: true, form: 'bare' });
    }
  }
  return { tokens, positionals };
}
