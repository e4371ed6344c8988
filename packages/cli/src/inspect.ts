// `pier inspect <url | -- command args…>`: who the server is, which eras it speaks, and what it offers.
import type {
  Client,
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/client';
import { parseFlags } from './args.js';
import { CliError, messageOf, type UsageIssues } from './errors.js';
import { type Io, printHelp, type Style, styleFor, table, withProgress } from './io.js';
import {
  connectTarget,
  describeTarget,
  LEGACY_VERSIONS,
  MODERN,
  parseEra,
  parseTarget,
  type Target,
} from './target.js';

export const INSPECT_HELP = `Usage: pier inspect <url> [options]
       pier inspect [options] -- <command> [args…]

Shows the server's name, version and instructions, which protocol eras it speaks (2026-07-28 and
2025), and its tools, resources, resource templates and prompts.

Options:
  --era <2026|2025|auto>  list with this era's client (default: auto, as SDK clients negotiate)
  --header <K=V>          an HTTP header to send, such as Authorization=Bearer… (repeatable)
  --json                  print one JSON object instead of tables
  -h, --help              this help

Exit codes: 0 the server answered; 1 it could not be reached or failed to list; 2 usage error.
`;

/** What `pier inspect --json` prints. */
export interface InspectReport {
  readonly target: string;
  readonly server: { readonly name: string; readonly version: string; readonly title?: string };
  readonly instructions?: string;
  readonly protocolVersion: string;
  readonly eras: {
    readonly '2026-07-28': EraProbe;
    readonly '2025': EraProbe;
  };
  readonly capabilities: Record<string, unknown>;
  readonly tools: readonly Tool[];
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplate[];
  readonly prompts: readonly Prompt[];
}

export type EraProbe =
  | { readonly ok: true; readonly protocolVersion: string }
  | { readonly ok: false; readonly error: string };

export async function inspectCommand(argv: readonly string[], io: Io): Promise<number> {
  const { flags, positionals, tail, issues } = parseFlags('inspect', argv, {
    era: { type: 'string' },
    header: { type: 'string', multiple: true },
    json: { type: 'boolean' },
  });
  if (flags.help) return printHelp(io, INSPECT_HELP);
  const [given, ...extra] = positionals;
  if (extra.length > 0) issues.add(`one server (got also ${extra.join(' ').slice(0, 60)})`);
  const target = parseTarget(issues, given, tail);
  const era = parseEra(issues, flags.era);
  const headers = headerFlags(issues, flags.header);
  issues.throwIfAny();
  if (target === undefined) return 2; // recorded in issues: thrown above
  const report = await withProgress(io, `inspecting ${describeTarget(target)}`, () =>
    inspect(target, { era, headers, cwd: io.cwd, env: io.env }),
  );
  io.stdout.write(
    flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderInspect(report, styleFor(io.stdout, io.env)),
  );
  return 0;
}

/** `--header` values (`Name=value` or `Name: value`); one without a name is recorded, its value unquoted. */
export function headerFlags(
  issues: UsageIssues,
  pairs: readonly string[] | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const at = pair.search(/[=:]/);
    if (at <= 0) issues.add('--header takes NAME=VALUE or "Name: value" (got no name before "=" or ":")');
    else headers[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return headers;
}

/** Connects, lists everything (every page), and probes the era the listing did not use. */
export async function inspect(
  target: Target,
  options: {
    era: '2026' | '2025' | 'auto';
    headers: Record<string, string>;
    cwd: string;
    env: NodeJS.ProcessEnv;
  },
): Promise<InspectReport> {
  const connection = await connectTarget(target, { ...options });
  let report: Omit<InspectReport, 'eras'>;
  try {
    const { client } = connection;
    const capabilities = (client.getServerCapabilities() ?? {}) as Record<string, unknown>;
    const info = client.getServerVersion();
    const instructions = client.getInstructions();
    report = {
      target: describeTarget(target),
      server: {
        name: info?.name ?? '(unnamed)',
        version: info?.version ?? '',
        ...(info?.title !== undefined && { title: info.title }),
      },
      ...(instructions !== undefined && { instructions }),
      protocolVersion: connection.protocolVersion,
      capabilities,
      tools: capabilities.tools === undefined ? [] : await allPages(client, 'tools'),
      resources: capabilities.resources === undefined ? [] : await allPages(client, 'resources'),
      resourceTemplates:
        capabilities.resources === undefined ? [] : await allPages(client, 'resourceTemplates'),
      prompts: capabilities.prompts === undefined ? [] : await allPages(client, 'prompts'),
    };
  } catch (error) {
    throw new CliError('CALL_FAILED', `${describeTarget(target)} failed to list: ${messageOf(error)}`, {
      cause: error,
    });
  } finally {
    await connection.close();
  }
  const used: EraProbe = { ok: true, protocolVersion: connection.protocolVersion };
  const other = connection.era === '2026' ? '2025' : '2026';
  const probed = await probeEra(target, other, options);
  return {
    ...report,
    eras: connection.era === '2026' ? { [MODERN]: used, '2025': probed } : { [MODERN]: probed, '2025': used },
  };
}

/** Whether a client of `era` can connect (a handshake only). */
export async function probeEra(
  target: Target,
  era: '2026' | '2025',
  options: { headers: Record<string, string>; cwd: string; env: NodeJS.ProcessEnv },
): Promise<EraProbe> {
  try {
    const connection = await connectTarget(target, { ...options, era, timeoutMs: 10_000 });
    await connection.close();
    return { ok: true, protocolVersion: connection.protocolVersion };
  } catch (error) {
    return { ok: false, error: messageOf(error).split('\n')[0] ?? '' };
  }
}

type Lists = { tools: Tool; resources: Resource; resourceTemplates: ResourceTemplate; prompts: Prompt };

/** Every page of a list (at most 100 pages: a server whose cursor never ends is cut off there). */
export async function allPages<K extends keyof Lists>(client: Client, kind: K): Promise<Lists[K][]> {
  const items: Lists[K][] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const params = cursor === undefined ? {} : { cursor };
    const result =
      kind === 'tools'
        ? await client.listTools(params)
        : kind === 'resources'
          ? await client.listResources(params)
          : kind === 'resourceTemplates'
            ? await client.listResourceTemplates(params)
            : await client.listPrompts(params);
    items.push(...((result as unknown as Record<string, Lists[K][]>)[kind] ?? []));
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return items;
}

export function renderInspect(report: InspectReport, style: Style): string {
  const out: string[] = [];
  const { server } = report;
  out.push(
    `${style.bold(server.title ?? server.name)} ${server.version}${server.title === undefined ? '' : style.dim(` (${server.name})`)}`,
  );
  out.push(`${style.dim('target')}  ${report.target}`);
  const eras = (
    [
      [MODERN, report.eras[MODERN]],
      ['2025', report.eras['2025']],
    ] as const
  ).map(([name, probe]) =>
    probe.ok
      ? `${style.green('✓')} ${name === '2025' ? probe.protocolVersion : name}`
      : `${style.red('✗')} ${name === '2025' ? `2025 (${LEGACY_VERSIONS[0]}…)` : name}: ${probe.error}`,
  );
  out.push(`${style.dim('eras')}    ${eras.join('   ')}`);
  if (report.instructions !== undefined) out.push(`${style.dim('instructions')}  ${report.instructions}`);
  out.push('');
  const withScopes = report.tools.some((tool) => scopesOf(tool).length > 0);
  out.push(style.bold(`Tools (${report.tools.length})`));
  out.push(
    table(
      ['name', 'title', 'input', ...(withScopes ? ['scopes'] : [])],
      report.tools.map((tool) => [
        style.cyan(tool.name),
        tool.title ?? tool.annotations?.title ?? '',
        inputFields(tool.inputSchema),
        ...(withScopes ? [scopesOf(tool).join(' ')] : []),
      ]),
      style,
    ),
  );
  out.push(style.bold(`Resources (${report.resources.length})`));
  out.push(
    table(
      ['uri', 'name', 'type'],
      report.resources.map((r) => [style.cyan(r.uri), r.title ?? r.name, r.mimeType ?? '']),
      style,
    ),
  );
  out.push(style.bold(`Resource templates (${report.resourceTemplates.length})`));
  out.push(
    table(
      ['uri template', 'name', 'type'],
      report.resourceTemplates.map((r) => [style.cyan(r.uriTemplate), r.title ?? r.name, r.mimeType ?? '']),
      style,
    ),
  );
  out.push(style.bold(`Prompts (${report.prompts.length})`));
  out.push(
    table(
      ['name', 'title', 'arguments'],
      report.prompts.map((p) => [
        style.cyan(p.name),
        p.title ?? '',
        (p.arguments ?? []).map((a) => `${a.name}${a.required ? '*' : ''}`).join(', '),
      ]),
      style,
    ),
  );
  return `${out.join('\n')}`;
}

/** `city: string*, days: integer` — the top-level fields of a tool's input schema, `*` when required. */
export function inputFields(schema: Tool['inputSchema'] | undefined): string {
  const properties = (schema?.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown[] }>;
  const required = new Set((schema?.required as string[] | undefined) ?? []);
  return Object.entries(properties)
    .map(([name, property]) => {
      const type = Array.isArray(property.enum)
        ? property.enum.map(String).join('|')
        : Array.isArray(property.type)
          ? property.type.join('|')
          : typeof property.type === 'string'
            ? property.type
            : 'any';
      return `${name}${required.has(name) ? '*' : ''}: ${type}`;
    })
    .join(', ');
}

/** Scopes a tool declares: OAuth `securitySchemes` on the tool or in its `_meta`, when a server lists them. */
export function scopesOf(tool: Tool): string[] {
  const record = tool as unknown as Record<string, unknown>;
  const schemes =
    record.securitySchemes ?? (record._meta as Record<string, unknown> | undefined)?.securitySchemes;
  if (!Array.isArray(schemes)) return [];
  return schemes.flatMap((scheme) => {
    const scopes = (scheme as { scopes?: unknown } | null)?.scopes;
    return Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : [];
  });
}
