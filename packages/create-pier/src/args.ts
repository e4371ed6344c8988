// The command line: `create-pier [directory] [flags]`. Every question has a flag.
import { CreatePierError } from './errors.js';

/** What the command line says; a question whose flag is absent is asked (or defaulted with `--yes`). */
export interface Flags {
  readonly directory?: string;
  readonly name?: string;
  readonly runtime?: string;
  readonly framework?: string;
  readonly transport?: string;
  readonly health?: boolean;
  readonly config?: boolean;
  readonly template?: string;
  readonly packageManager?: string;
  readonly yes: boolean;
  readonly force: boolean;
  readonly install: boolean;
  readonly help: boolean;
  readonly version: boolean;
}

const VALUED: Record<string, keyof Flags> = {
  name: 'name',
  runtime: 'runtime',
  framework: 'framework',
  transport: 'transport',
  template: 'template',
  pm: 'packageManager',
  'package-manager': 'packageManager',
};
const BOOLEAN: Record<string, keyof Flags> = {
  health: 'health',
  config: 'config',
  yes: 'yes',
  force: 'force',
  install: 'install',
  help: 'help',
  version: 'version',
};
const SHORT: Record<string, string> = { '-y': '--yes', '-h': '--help', '-v': '--version', '-f': '--force' };

export function parseFlags(argv: readonly string[]): Flags {
  const flags: Record<string, unknown> = {
    yes: false,
    force: false,
    install: true,
    help: false,
    version: false,
  };
  const positionals: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const raw = argv[index] as string;
    const token = SHORT[raw] ?? raw;
    if (!token.startsWith('--')) {
      positionals.push(token);
      continue;
    }
    const [flag = '', inline] = token.slice(2).split(/=(.*)/s, 2);
    const valued = VALUED[flag];
    if (valued !== undefined) {
      const value = inline ?? argv[++index];
      if (value === undefined || value.startsWith('--')) {
        throw new CreatePierError('OPTIONS_INVALID', `--${flag} needs a value`);
      }
      flags[valued] = value;
      continue;
    }
    const negated = flag.startsWith('no-') ? BOOLEAN[flag.slice(3)] : undefined;
    const boolean = BOOLEAN[flag] ?? negated;
    if (boolean === undefined || (inline !== undefined && !['true', 'false'].includes(inline))) {
      throw new CreatePierError('OPTIONS_INVALID', unknown(flag));
    }
    flags[boolean] = negated === undefined ? inline !== 'false' : false;
  }
  if (positionals.length > 1) {
    throw new CreatePierError(
      'OPTIONS_INVALID',
      `one directory at most (got ${positionals.map((p) => `"${p}"`).join(', ')})`,
    );
  }
  if (positionals[0] !== undefined) flags.directory = positionals[0];
  return flags as unknown as Flags;
}

function unknown(flag: string): string {
  const known = [...Object.keys(VALUED), ...Object.keys(BOOLEAN), 'no-health', 'no-config', 'no-install'];
  const near = known
    .map((name) => ({ name, distance: distance(flag, name) }))
    .sort((a, b) => a.distance - b.distance)[0];
  const hint = near !== undefined && near.distance <= 2 ? ` (did you mean --${near.name}?)` : '';
  return `unknown option --${flag}${hint}; see create-pier --help`;
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

export const HELP = `Usage: create-pier [directory] [options]

Scaffolds a Pier MCP server project in TypeScript. Questions whose flag is given are not asked.

Options:
  --name <name>          package and server name (default: the directory's name)
  --runtime <r>          node, bun, deno or workers (Cloudflare); bun, deno and workers serve
                         streamable HTTP through a fetch handler (default: node)
  --framework <f>        none, express, fastify or hono: on Node, mount MCP in an app of that
                         framework beside its own routes (implies --transport http; default: none)
  --transport <t>        stdio, http or both (default: stdio; http on bun, deno and workers)
  --health, --no-health  /health endpoints with @pier/plugin-health (HTTP only; default: yes)
  --config, --no-config  settings through @pier/config (default: yes; workers: bindings instead)
  --template <t>         decorators (a class) or plain (objects, no decorators) (default: decorators)
  --pm <pm>              npm or pnpm: installs and prints the commands (default: the one running this)
  --no-install           write the files only
  -y, --yes              take the default of every question not given by a flag
  -f, --force            write into a directory that is not empty
  -h, --help             this help
  -v, --version          the version of create-pier

Without a terminal (CI, a pipe), the defaults are taken as with --yes.
`;
