/** The untyped result of tokenizing an argument list. */
export interface ParsedArgs {
  /** Options by name (without the leading `--`): a string value, or `true` for a bare flag. */
  readonly options: Record<string, string | true>;
  /** Tokens that are not options or option values, in order. */
  readonly positionals: readonly string[];
}

/**
 * Tokenizes `argv` the way MCP clients pass arguments: `--name value`, `--name=value`,
 * and a bare `--name` (last, or followed by another `--` token) is `true`.
 */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const options: Record<string, string | true> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith('--')) {
      positionals.push(token);
      continue;
    }
    const eq = token.indexOf('=');
    if (eq !== -1) {
      options[token.slice(2, eq)] = token.slice(eq + 1);
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      options[token.slice(2)] = next;
      i++;
    } else {
      options[token.slice(2)] = true;
    }
  }
  return { options, positionals };
}
