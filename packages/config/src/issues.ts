import type { $ZodIssue } from 'zod/v4/core';
import type { SchemaInfo } from './schema-kind.js';

/**
 * What went wrong, as a stable string:
 * - `required`: no value from any source and no default.
 * - `missing_value`: a valued option written bare (`--api-key` with nothing after it).
 * - `invalid_integer` / `invalid_number` / `invalid_boolean`: text that does not read as that type.
 * - `invalid_value`: the schema rejected the value (enum, URL, range, refinement…).
 * - `unknown_option`: a `--name` that the spec does not define.
 * - `unexpected_argument`: a token that is not an option or an option's value.
 * - `ambiguous_boolean`: (warning) a boolean variable set to text such as `1` or `yes`, read as false.
 */
export type ConfigIssueCode =
  | 'required'
  | 'missing_value'
  | 'invalid_integer'
  | 'invalid_number'
  | 'invalid_boolean'
  | 'invalid_value'
  | 'unknown_option'
  | 'unexpected_argument'
  | 'ambiguous_boolean';

/** One problem with the configuration. Printed as `path (source): message`. */
export interface ConfigIssue {
  readonly code: ConfigIssueCode;
  /** `error` stops the program; `warning` is printed and the program goes on. */
  readonly severity: 'error' | 'warning';
  /**
   * The spec key, with the schema's inner path for nested values (`apiKey`, `hosts.0`); for problems
   * with argv itself, the option as written (`--max-retrys`) or `argv`.
   */
  readonly path: string;
  /** Where the value came from (`API_KEY`, `--api-key`, `default`), where it could have come from
   * (`API_KEY or --api-key` when required), or the argv position (`argv[3]`). */
  readonly source: string;
  /** What is wrong, in plain words. Never holds a secret's value, nor the value of an unknown option. */
  readonly message: string;
}

/** The printed form of an issue: `path (source): message`, with `warning: ` before a warning's message. */
export function formatIssue(issue: ConfigIssue): string {
  const prefix = issue.severity === 'warning' ? 'warning: ' : '';
  return `${issue.path} (${issue.source}): ${prefix}${issue.message}`;
}

/** The facts about an option that words a message. */
export interface IssueContext {
  readonly key: string;
  readonly source: string;
  readonly secret: boolean;
  readonly info: SchemaInfo;
}

/** An error issue for the option described by `context`. */
export function optionIssue(context: IssueContext, code: ConfigIssueCode, message: string): ConfigIssue {
  return { code, severity: 'error', path: context.key, source: context.source, message };
}

/** Turns zod's issues into ours: `required` for a missing value, allowed values for enums and URLs. */
export function fromZodIssues(
  context: IssueContext,
  input: unknown,
  issues: readonly $ZodIssue[],
): ConfigIssue[] {
  return issues.map((issue) => {
    const path = [context.key, ...issue.path.map(String)].join('.');
    const base = { severity: 'error', path, source: context.source } as const;
    if (input === undefined && issue.code === 'invalid_type' && issue.path.length === 0) {
      return { ...base, code: 'required', message: 'required' };
    }
    return {
      ...base,
      code: 'invalid_value',
      message: zodMessage(context, issue, valueAt(input, issue.path)),
    };
  });
}

function zodMessage(context: IssueContext, issue: $ZodIssue, received: unknown): string {
  const got = context.secret || received === undefined ? '' : `, got ${show(received)}`;
  if (issue.code === 'invalid_value') {
    return `expected one of ${issue.values.map((value) => String(value)).join(', ')}${got}`;
  }
  if (issue.code === 'invalid_format' && issue.format === 'url') {
    const protocol = context.info.url?.protocol;
    const allowed = protocol === undefined ? '' : ` (${describeProtocols(protocol)})`;
    return `expected an absolute URL such as https://example.com${allowed}${got}`;
  }
  if (issue.code === 'invalid_format') return `${issue.message}${got}`;
  return issue.message;
}

const COMMON_PROTOCOLS = ['http', 'https', 'ws', 'wss', 'ftp', 'file', 'postgres', 'postgresql', 'redis'];

/** Names the protocols a URL schema allows, or shows its pattern when none of the common ones match. */
function describeProtocols(protocol: RegExp): string {
  const allowed = COMMON_PROTOCOLS.filter((name) => {
    protocol.lastIndex = 0;
    return protocol.test(name);
  });
  return allowed.length === 0 ? `protocol matching ${protocol}` : `protocol ${allowed.join(' or ')}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/** A value quoted for a message, cut short when long. Only ever called for values that are not secret. */
export function show(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * Replaces every occurrence of a secret's text in issue messages, a last line of defence for messages
 * written by user code (a refinement's custom error may quote its input). Values shorter than four
 * characters are left alone: replacing them would garble ordinary words.
 */
export function scrubSecrets(
  issues: readonly ConfigIssue[],
  secrets: readonly string[],
  mask: (value: string) => string,
): ConfigIssue[] {
  const long = secrets.filter((secret) => secret.length >= 4).sort((a, b) => b.length - a.length);
  if (long.length === 0) return [...issues];
  const scrub = (text: string) => long.reduce((out, secret) => scrubOne(out, secret, mask(secret)), text);
  return issues.map((issue) => ({ ...issue, path: scrub(issue.path), message: scrub(issue.message) }));
}

/**
 * One secret out of one text: as written, as quoted by {@link show} (JSON escapes), and cut short by
 * `show` (a secret pasted into the wrong, non-secret option is quoted as `"postgres://user:pa...`, and
 * that prefix is as much a leak as the whole value).
 */
function scrubOne(text: string, secret: string, masked: string): string {
  let out = text;
  const escaped = JSON.stringify(secret).slice(1, -1);
  for (const form of escaped === secret ? [secret] : [secret, escaped]) {
    out = out.split(form).join(masked);
    for (let length = form.length - 1; length >= 4 && out.includes('...'); length--) {
      out = out.split(`${form.slice(0, length)}...`).join(`${masked}...`);
    }
  }
  return out;
}
