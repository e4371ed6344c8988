// `pier install <client>`: this server's entry written into an MCP client's configuration file — merged
// into what is there, the old file kept as a backup, other servers untouched, secrets never printed.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closest, keyValues, parseFlags } from './args.js';
import {
  CLIENTS,
  type ClientName,
  DEFAULT_SCOPE,
  entryFor,
  hostEnvironment,
  placeOf,
  SCOPES,
  type Scope,
  type ServerSpec,
} from './clients.js';
import { objectAt, readConfigFile, setIn, writeWithBackup } from './config-file.js';
import { CliError, type UsageIssues } from './errors.js';
import { type Io, printHelp, styleFor } from './io.js';

export const INSTALL_HELP = `Usage: pier install <client> [options] [url | -- command args…]

Adds this server to an MCP client's configuration: claude-desktop, claude-code, cursor or vscode.
Without a URL or a command it installs the project in the current directory: node dist/main.js (build
it first), or with --dev, pier dev on its source (the client's connection then survives your edits).

The entry is merged into the client's file: other servers and settings stay as they are, the previous
file is kept beside it (<file>.pier-backup-<time>), and an entry of the same name is only replaced with
--force. Values given with --env reach the server as environment variables and are never printed.

Options:
  --name <name>        the server's name in the client (default: the package name)
  --env <K=V | K>      an environment variable for the server; K alone takes this shell's value (repeatable)
  --header <K=V>       an HTTP header, for a URL (repeatable; printed masked)
  --scope <scope>      claude-code: local (default), user or project; cursor, vscode: user (default) or project
  --dev                install \`pier dev\` on the source instead of the built server
  --force              replace an entry of the same name
  --dry-run            print the change and write nothing
  --json               print what was (or would be) written as JSON, secrets masked
  -h, --help           this help

Exit codes: 0 written (or already up to date, or --dry-run); 1 the file could not be read or merged, or
an entry of that name exists; 2 usage error.
`;

/** What `pier install --json` prints. */
export interface InstallReport {
  readonly client: ClientName;
  readonly scope: Scope;
  readonly file: string;
  readonly name: string;
  /** The entry as written, environment values and header values masked. */
  readonly entry: Record<string, unknown>;
  /** `created` (no file before), `updated`, `unchanged`, or with --dry-run `would-create`/`would-update`. */
  readonly action: 'created' | 'updated' | 'unchanged' | 'would-create' | 'would-update';
  readonly backup?: string;
  readonly replaced: boolean;
}

export async function installCommand(argv: readonly string[], io: Io): Promise<number> {
  const { flags, positionals, tail, issues } = parseFlags('install', argv, {
    name: { type: 'string' },
    env: { type: 'string', multiple: true },
    header: { type: 'string', multiple: true },
    scope: { type: 'string' },
    dev: { type: 'boolean' },
    force: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (flags.help) return printHelp(io, INSTALL_HELP);
  const [clientName, url, ...extra] = positionals;
  let client: ClientName | undefined;
  if (clientName === undefined) issues.add(`which client? one of ${CLIENTS.join(', ')}`);
  else if (!(CLIENTS as readonly string[]).includes(clientName)) {
    const near = closest(clientName, CLIENTS);
    issues.add(
      `unknown client "${clientName.slice(0, 40)}"${near === undefined ? '' : ` (did you mean ${near}?)`}; clients: ${CLIENTS.join(', ')}`,
    );
  } else client = clientName as ClientName;
  if (extra.length > 0)
    issues.add(`unexpected ${extra.join(' ').slice(0, 60)}; a command for the server goes after --`);
  const scope = (flags.scope ?? (client === undefined ? undefined : DEFAULT_SCOPE[client])) as Scope;
  if (client !== undefined && !SCOPES[client].includes(scope))
    issues.add(`${client} has no scope "${flags.scope}"; its scopes: ${SCOPES[client].join(', ')}`);
  const env = environment(issues, flags.env, io.env);
  const spec = serverSpec(io, issues, {
    url,
    tail,
    dev: flags.dev === true,
    env,
    headers: keyValues(issues, '--header', flags.header),
  });
  const name = flags.name ?? defaultName(io.cwd);
  if (!/^[\w.@-][\w.@ -]*$/.test(name))
    issues.add(`--name may hold letters, digits, spaces and . _ - @ (got "${name.slice(0, 40)}")`);
  const entry =
    client === undefined || spec === undefined || spec === 'not built' ? undefined : entryFor(client, spec);
  if (typeof entry === 'string') issues.add(entry);
  issues.throwIfAny();
  // The built server missing is not a usage error: the command line was right, the project is not ready.
  if (spec === 'not built') throw notBuilt(io.cwd);
  if (client === undefined || entry === undefined || typeof entry === 'string') return 2; // thrown above
  const where = hostEnvironment(io.env, io.cwd);
  const report = install(client, scope, name, entry, where, {
    force: flags.force === true,
    dryRun: flags['dry-run'] === true,
  });
  const style = styleFor(io.stdout, io.env);
  if (flags.json) {
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  }
  const verb = {
    created: 'Created',
    updated: report.replaced ? 'Replaced the entry in' : 'Added to',
    unchanged: 'Already up to date:',
    'would-create': 'Would create',
    'would-update': report.replaced ? 'Would replace the entry in' : 'Would add to',
  }[report.action];
  io.stdout.write(`${verb} ${style.bold(report.file)} (${client}, ${scope}): ${style.cyan(name)}\n`);
  io.stdout.write(`${indent(JSON.stringify({ [name]: report.entry }, null, 2))}\n`);
  if (report.backup !== undefined) io.stdout.write(`${style.dim(`backup: ${report.backup}`)}\n`);
  if (report.action === 'created' || report.action === 'updated')
    io.stdout.write(`${style.dim(RESTART[client])}\n`);
  return 0;
}

const RESTART: Record<ClientName, string> = {
  'claude-desktop': 'Restart Claude Desktop to load it.',
  'claude-code': 'Claude Code loads it in its next session (claude mcp list shows it).',
  cursor: 'Cursor picks it up in Settings → MCP (toggle it on if asked).',
  vscode: 'VS Code lists it under MCP: List Servers; start it from there.',
};

function environment(
  issues: UsageIssues,
  pairs: readonly string[] | undefined,
  env: NodeJS.ProcessEnv,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    if (pair.includes('=')) Object.assign(out, keyValues(issues, '--env', [pair]));
    else if (/^\w+$/.test(pair)) {
      const value = env[pair];
      if (value === undefined)
        issues.add(`--env ${pair}: the variable is not set in this shell; give ${pair}=value`);
      else out[pair] = value;
      // Not quoted: a value given without its name may be a secret.
    } else issues.add('--env takes KEY=VALUE or KEY (got neither: no "=" and not a variable name)');
  }
  return out;
}

/**
 * The server to install, from the URL, the command after `--`, `--dev`, or this project's build;
 * `undefined` when the command line is wrong (recorded in `issues`), `not built` when there is nothing
 * to install yet.
 */
function serverSpec(
  io: Io,
  issues: UsageIssues,
  given: {
    url: string | undefined;
    tail: string[] | undefined;
    dev: boolean;
    env: Record<string, string>;
    headers: Record<string, string>;
  },
): ServerSpec | 'not built' | undefined {
  if (given.url !== undefined) {
    const before = issues.count;
    if (given.tail !== undefined) issues.add('give a URL or a command after --, not both');
    if (!/^https?:\/\//i.test(given.url) || !URL.canParse(given.url))
      issues.add(`"${given.url.slice(0, 60)}" is not an http(s) URL`);
    if (Object.keys(given.env).length > 0)
      issues.add('--env is for a server the client spawns; a URL server takes --header');
    return issues.count > before
      ? undefined
      : { kind: 'url', url: new URL(given.url).href, headers: given.headers };
  }
  if (Object.keys(given.headers).length > 0) issues.add('--header is for a URL server');
  if (given.tail !== undefined) {
    const [command, ...args] = given.tail;
    if (command === undefined) {
      issues.add('nothing after --; give the command that starts the server');
      return undefined;
    }
    return { kind: 'command', command, args, env: given.env };
  }
  if (given.dev) {
    const entry = ['src/main.ts', 'src/index.ts'].map((p) => join(io.cwd, p)).find((p) => existsSync(p));
    if (entry === undefined) {
      issues.add(`--dev needs src/main.ts in ${io.cwd}`);
      return undefined;
    }
    const bin = fileURLToPath(new URL('./bin.js', import.meta.url));
    return { kind: 'command', command: process.execPath, args: [bin, 'dev', entry], env: given.env };
  }
  const built = join(io.cwd, 'dist', 'main.js');
  if (!existsSync(built)) return 'not built';
  return { kind: 'command', command: process.execPath, args: [built], env: given.env };
}

function notBuilt(cwd: string): CliError {
  return new CliError(
    'CONFIG_INVALID',
    `install: ${join(cwd, 'dist', 'main.js')} does not exist: build the server first (npm run build), install pier dev with --dev, or give the command after --`,
  );
}

function defaultName(cwd: string): string {
  try {
    const manifest = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')) as { name?: unknown };
    if (typeof manifest.name === 'string' && manifest.name !== '')
      return manifest.name.replace(/^@[^/]+\//, '');
  } catch {
    // No package.json: the directory's name.
  }
  return basename(resolve(cwd));
}

/** Merges `entry` under `name` into the client's file (or says what it would do, with `dryRun`). */
export function install(
  client: ClientName,
  scope: Scope,
  name: string,
  entry: Record<string, unknown>,
  where: ReturnType<typeof hostEnvironment>,
  options: { force: boolean; dryRun: boolean },
): InstallReport {
  const place = placeOf(client, scope, where);
  const config = readConfigFile(place.file);
  const previous = objectAt(config, place.path)[name];
  const base = { client, scope, file: place.file, name, entry: maskEntry(entry) };
  if (previous !== undefined && JSON.stringify(previous) === JSON.stringify(entry)) {
    return { ...base, action: 'unchanged', replaced: false };
  }
  if (previous !== undefined && !options.force) {
    throw new CliError(
      'CONFIG_INVALID',
      `install: ${place.file} already has a server named "${name}" (${describeEntry(previous)}); pass --force to replace it, or --name to add another`,
    );
  }
  const replaced = previous !== undefined;
  if (options.dryRun) return { ...base, action: config.exists ? 'would-update' : 'would-create', replaced };
  const backup = writeWithBackup(config, setIn(config, [...place.path, name], entry));
  return {
    ...base,
    action: config.exists ? 'updated' : 'created',
    replaced,
    ...(backup !== undefined && { backup }),
  };
}

/** The entry with every environment and header value replaced by asterisks. */
export function maskEntry(entry: Record<string, unknown>): Record<string, unknown> {
  const mask = (values: unknown) =>
    Object.fromEntries(
      Object.keys((values ?? {}) as Record<string, unknown>).map((key) => [key, '********']),
    );
  return {
    ...entry,
    ...(entry.env !== undefined && { env: mask(entry.env) }),
    ...(entry.headers !== undefined && { headers: mask(entry.headers) }),
  };
}

function describeEntry(entry: unknown): string {
  const record = (entry ?? {}) as { command?: unknown; args?: unknown; url?: unknown };
  if (typeof record.url === 'string') return record.url;
  const args = Array.isArray(record.args) ? record.args.map(String).join(' ') : '';
  return `${String(record.command ?? '?')} ${args}`.trim();
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
