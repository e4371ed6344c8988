// A client's configuration file, edited in place: JSON with comments and trailing commas read as VS Code
// reads them (jsonc-parser, VS Code's own), the one entry set by a text edit so that comments, key order
// and everything else stay as they were; written atomically with its mode kept and the old file backed up.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import jsonc from 'jsonc-parser';
import { CliError } from './errors.js';

/** A configuration file as read: its text (empty when there is none) and its value. */
export interface ConfigFile {
  readonly file: string;
  readonly exists: boolean;
  readonly text: string;
  readonly value: Record<string, unknown>;
}

/** Reads `file`; a `CONFIG_INVALID` error (nothing written) when it is not a JSON object. */
export function readConfigFile(file: string): ConfigFile {
  if (!existsSync(file)) return { file, exists: false, text: '', value: {} };
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return { file, exists: true, text, value: {} };
  const errors: jsonc.ParseError[] = [];
  const value: unknown = jsonc.parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const [first] = errors;
  if (first !== undefined) {
    const { line, column } = position(text, first.offset);
    throw new CliError(
      'CONFIG_INVALID',
      `install: ${file} is not valid JSON (${jsonc.printParseErrorCode(first.error)} at line ${line}, column ${column}); fix it or move it away, nothing was written`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError('CONFIG_INVALID', `install: ${file} does not hold a JSON object; nothing was written`);
  }
  return { file, exists: true, text, value: value as Record<string, unknown> };
}

/** The value at `path` in `value`, or a `CONFIG_INVALID` error naming the first step that is not an object. */
export function objectAt(config: ConfigFile, path: readonly string[]): Record<string, unknown> {
  let holder: unknown = config.value;
  for (const [index, step] of path.entries()) {
    const next: unknown = (holder as Record<string, unknown>)[step];
    if (next === undefined) return {};
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      throw new CliError(
        'CONFIG_INVALID',
        `install: ${config.file}: "${path.slice(0, index + 1).join('.')}" is not an object; nothing was written`,
      );
    }
    holder = next;
  }
  return holder as Record<string, unknown>;
}

/** The file's text with `value` set at `path` (created with the objects on the way), the rest untouched. */
export function setIn(config: ConfigFile, path: readonly string[], value: unknown): string {
  if (config.text.trim() === '') {
    const nested = path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
    return `${JSON.stringify(nested, null, 2)}\n`;
  }
  const indentation = /\n([ \t]+)"/.exec(config.text)?.[1] ?? '  ';
  const edits = jsonc.modify(config.text, [...path], value, {
    formattingOptions: {
      insertSpaces: !indentation.startsWith('\t'),
      tabSize: indentation.startsWith('\t') ? 1 : indentation.length,
      eol: config.text.includes('\r\n') ? '\r\n' : '\n',
    },
  });
  return jsonc.applyEdits(config.text, edits);
}

/**
 * Writes `text` to the file atomically (a temporary file renamed over it), keeping its mode (a new file
 * gets 0600: it may hold secrets); the old file is first copied to `<file>.pier-backup-<time>`, whose
 * path is returned.
 */
export function writeWithBackup(config: ConfigFile, text: string): string | undefined {
  const { file } = config;
  mkdirSync(dirname(file), { recursive: true });
  const mode = config.exists ? statSync(file).mode & 0o777 : 0o600;
  let backup: string | undefined;
  if (config.exists) {
    backup = `${file}.pier-backup-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    copyFileSync(file, backup);
    chmodSync(backup, mode);
  }
  const temp = `${file}.pier-${process.pid}.tmp`;
  writeFileSync(temp, text, { mode });
  renameSync(temp, file);
  return backup;
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}
