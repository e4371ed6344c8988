import type { SchemaInfo } from './schema-kind.js';
import { isFlagKind, type OptionEntry } from './spec.js';

/** What the help text says about the program itself. */
export interface HelpDetails {
  readonly name: string;
  readonly description?: string | undefined;
  readonly version?: string | undefined;
}

/**
 * Help generated from the spec: one row per option with its flag, variable, description, default
 * and whether it is required or secret. It shows defaults only, never a value read from argv or the
 * environment, so a secret cannot reach it.
 */
export function formatHelp(entries: readonly OptionEntry[], details: HelpDetails): string {
  const rows: [string, string, string][] = entries.map((entry) => [
    flagColumn(entry),
    entry.env ?? '',
    describe(entry),
  ]);
  const flags = new Set(entries.map((entry) => entry.flag));
  if (!flags.has('help')) rows.push(['--help', '', 'Print this help and exit']);
  if (details.version !== undefined && !flags.has('version')) {
    rows.push(['--version', '', 'Print the version and exit']);
  }
  const flagWidth = Math.max(...rows.map(([flag]) => flag.length));
  const envWidth = Math.max(...rows.map(([, env]) => env.length));
  const lines = rows.map(([flag, env, text]) =>
    `  ${flag.padEnd(flagWidth)}  ${env.padEnd(envWidth)}  ${text}`.trimEnd(),
  );
  return [
    `Usage: ${details.name} [options]`,
    ...(details.description === undefined ? [] : ['', details.description]),
    '',
    'Options (flag, environment variable, description):',
    ...lines,
    '',
    'Flags override environment variables, which override defaults.',
    'A boolean variable is true only when set to the exact text true.',
    '',
  ].join('\n');
}

function flagColumn(entry: OptionEntry): string {
  if (entry.flag === undefined) return '';
  if (isFlagKind(entry.info)) return `--${entry.flag}, --no-${entry.flag}`;
  return `--${entry.flag} <${placeholder(entry.info)}>`;
}

function placeholder(info: SchemaInfo): string {
  if (info.url !== undefined) return 'url';
  if (info.kind === 'integer') return 'integer';
  if (info.kind === 'number') return 'number';
  return 'value';
}

function describe(entry: OptionEntry): string {
  const notes: string[] = [];
  if (entry.info.values !== undefined) notes.push(`one of: ${entry.info.values.map(String).join(', ')}`);
  if (entry.required) notes.push('required');
  else if (entry.default !== undefined) notes.push(`default: ${showDefault(entry.default.value)}`);
  else notes.push('optional');
  if (entry.secret) notes.push('secret');
  const text = entry.description ?? '';
  return text === '' ? `(${notes.join('; ')})` : `${text} (${notes.join('; ')})`;
}

function showDefault(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value !== 'object' || value === null || value instanceof Date || value instanceof URL) {
    return String(value);
  }
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
