// `pier call <tool> [key=value…] [--args JSON] (<url> | -- command args…)`: one tool call, its result
// printed for a person (or as JSON), questions the tool asks answered on the terminal or by --answer.
import type { CallToolResult, ElicitRequest, ElicitResult, Tool } from '@modelcontextprotocol/client';
import { closest, parseFlags } from './args.js';
import { askOnTerminal } from './ask.js';
import { CliError, messageOf, UsageIssues, usage } from './errors.js';
import { allPages, headerFlags } from './inspect.js';
import { type Io, printHelp, type Style, styleFor, withProgress } from './io.js';
import { connectTarget, describeTarget, parseEra, parseTarget } from './target.js';

export const CALL_HELP = `Usage: pier call <tool> [key=value…] [options] <url>
       pier call <tool> [key=value…] [options] -- <command> [args…]

Calls a tool and prints its result: text as text, structured content as JSON, resource links and
embedded resources by URI. key=value pairs are the tool's arguments, typed by its input schema
(numbers, booleans, and JSON for objects and arrays); --args gives them all as one JSON object.

When the tool asks a question (elicitation), pier asks it on the terminal; without a terminal it
answers with --answer (a JSON object to accept, or "decline" / "cancel"; repeat for several
questions), and cancels when none is left.

Options:
  --args <json>           the arguments as a JSON object (key=value pairs override its keys)
  --answer <json|decline|cancel>  the answer to a question the tool asks (repeatable, in order)
  --era <2026|2025|auto>  the protocol era to call with (default: auto)
  --header <K=V>          an HTTP header to send, such as Authorization=Bearer… (repeatable)
  --json                  print the whole CallToolResult as JSON
  -h, --help              this help

Exit codes: 0 the tool succeeded; 1 the tool returned an error (isError) or the call failed;
2 usage error (including an unknown tool or a bad argument).
`;

export async function callCommand(argv: readonly string[], io: Io): Promise<number> {
  const { flags, positionals, tail, issues } = parseFlags('call', argv, {
    args: { type: 'string' },
    answer: { type: 'string', multiple: true },
    era: { type: 'string' },
    header: { type: 'string', multiple: true },
    json: { type: 'boolean' },
  });
  if (flags.help) return printHelp(io, CALL_HELP);
  // The tool's name comes first; the URL, if any, is the word that is one; the rest are key=value.
  const isUrl = (word: string) => /^https?:\/\//i.test(word);
  const urls = positionals.filter(isUrl);
  const [name, ...pairs] = positionals.filter((word) => !isUrl(word));
  if (name === undefined || name.includes('=')) {
    issues.add('which tool? pier call <tool> [key=value…] <url | -- command>');
    if (name !== undefined) pairs.unshift(name);
  }
  if (urls.length > 1) issues.add(`one server (got ${urls.map((url) => url.slice(0, 60)).join(' and ')})`);
  for (const pair of pairs) {
    if (pair.indexOf('=') <= 0)
      issues.add(`"${pair.slice(0, 40)}" is neither key=value nor a URL; arguments are key=value`);
  }
  const target = parseTarget(issues, urls[0], tail);
  const era = parseEra(issues, flags.era);
  const base = parseArgsJson(issues, flags.args);
  const answers = (flags.answer ?? []).map((answer) => parseAnswer(issues, answer));
  const headers = headerFlags(issues, flags.header);
  issues.throwIfAny();
  if (name === undefined || target === undefined) return 2; // recorded in issues: thrown above
  const style = styleFor(io.stdout, io.env);
  const errStyle = styleFor(io.stderr, io.env);

  const interactive = io.stdin.isTTY === true && io.stderr.isTTY === true && answers.length === 0;
  const onElicit = async (params: ElicitRequest['params']): Promise<ElicitResult> => {
    if (interactive) return askOnTerminal(io, params, errStyle);
    const next = answers.shift();
    io.stderr.write(`pier: the tool asks: ${params.message}\n`);
    if (next === undefined) {
      io.stderr.write('pier: no terminal and no --answer left: cancelling the question\n');
      return { action: 'cancel' };
    }
    io.stderr.write(`pier: answering with --answer (${next.action})\n`);
    return next;
  };

  const connection = await withProgress(io, `connecting to ${describeTarget(target)}`, () =>
    connectTarget(target, { era, onElicit, headers, cwd: io.cwd, env: io.env }),
  );
  try {
    const tools = await allPages(connection.client, 'tools');
    const tool = tools.find((candidate) => candidate.name === name);
    if (tool === undefined) {
      const near = closest(
        name,
        tools.map((t) => t.name),
      );
      throw usage(
        `call: the server has no tool "${name}"${near === undefined ? '' : ` (did you mean ${near}?)`}; it has: ${tools.map((t) => t.name).join(', ') || 'none'}`,
      );
    }
    // Every problem with the arguments at once, before anything is called.
    const argumentIssues = new UsageIssues('call');
    const args = { ...base, ...typedPairs(argumentIssues, pairs, tool) };
    checkRequired(argumentIssues, tool, args, pairs);
    argumentIssues.throwIfAny();
    let result: CallToolResult;
    try {
      result = (await connection.client.callTool({ name, arguments: args })) as CallToolResult;
    } catch (error) {
      throw new CliError('CALL_FAILED', `call: ${name} failed: ${messageOf(error)}`, { cause: error });
    }
    io.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : renderResult(result, style));
    return result.isError === true ? 1 : 0;
  } finally {
    await connection.close();
  }
}

function parseArgsJson(issues: UsageIssues, text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    issues.add(`--args is not JSON: ${messageOf(error)}`);
    return {};
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.add('--args must be a JSON object, such as {"city":"Oslo"}');
    return {};
  }
  return value as Record<string, unknown>;
}

function parseAnswer(issues: UsageIssues, text: string): ElicitResult {
  if (text === 'decline' || text === 'cancel') return { action: text };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    issues.add(`--answer must be a JSON object, decline or cancel: ${messageOf(error)}`);
    return { action: 'cancel' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.add("--answer must be a JSON object (the answer's fields), decline or cancel");
    return { action: 'cancel' };
  }
  return { action: 'accept', content: value as ElicitResult['content'] };
}

/** key=value pairs typed by the tool's input schema; each pair that does not fit is recorded in `issues`. */
export function typedPairs(
  issues: UsageIssues,
  pairs: readonly string[],
  tool: Tool,
): Record<string, unknown> {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const key = pair.slice(0, at);
    const raw = pair.slice(at + 1);
    const property = properties[key];
    // An argument the schema does not name: refused when the schema allows no others, and when it is a
    // typo of one it names (a server that strips unknown keys would otherwise say the real one is missing).
    const near = property === undefined ? closest(key, Object.keys(properties)) : undefined;
    if (property === undefined && (tool.inputSchema.additionalProperties === false || near !== undefined)) {
      issues.add(
        `${tool.name} takes no argument "${key}"${near === undefined ? '' : ` (did you mean ${near}?)`}; it takes: ${Object.keys(properties).join(', ') || 'none'}`,
      );
      continue;
    }
    const typed = coerce(key, raw, property?.type);
    if (typed.problem !== undefined) issues.add(typed.problem);
    out[key] = typed.value;
  }
  return out;
}

/**
 * Records the required arguments `args` lacks, with the call that would give them — leaving out one a
 * given key is a typo of (that typo was named already).
 */
export function checkRequired(
  issues: UsageIssues,
  tool: Tool,
  args: Record<string, unknown>,
  pairs: readonly string[],
): void {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const known = Object.keys(properties);
  const typos = new Set(
    pairs
      .map((pair) => pair.slice(0, pair.indexOf('=')))
      .filter((key) => properties[key] === undefined)
      .map((key) => closest(key, known)),
  );
  const required = (tool.inputSchema.required as string[] | undefined) ?? [];
  const missing = required.filter((key) => args[key] === undefined && !typos.has(key));
  if (missing.length === 0) return;
  const typed = missing.map((key) => {
    const type = properties[key]?.type;
    return `${key} (${Array.isArray(type) ? type.join('|') : typeof type === 'string' ? type : 'any'})`;
  });
  issues.add(
    `${tool.name} needs ${typed.join(', ')}: pier call ${tool.name} ${missing.map((key) => `${key}=…`).join(' ')} …`,
  );
}

/** The value `raw` stands for under JSON Schema `type`, or the problem (the raw text kept as the value). */
function coerce(key: string, raw: string, type: unknown): { value: unknown; problem?: string } {
  const types = Array.isArray(type) ? type : [type];
  const refused = (expected: string) => ({
    value: raw,
    problem: `${key} must be ${expected} (got "${raw.slice(0, 30)}")`,
  });
  if (types.includes('string')) return { value: raw };
  if (types.includes('integer') || types.includes('number')) {
    const value = Number(raw);
    const whole = types.includes('integer') && !types.includes('number');
    if (raw.trim() === '' || !Number.isFinite(value) || (whole && !Number.isInteger(value)))
      return refused(whole ? 'a whole number' : 'a number');
    return { value };
  }
  if (types.includes('boolean')) {
    if (raw === 'true' || raw === 'false') return { value: raw === 'true' };
    return refused('true or false');
  }
  if (types.includes('object') || types.includes('array') || types.includes('null')) {
    try {
      return { value: JSON.parse(raw) };
    } catch {
      return refused(`JSON (${types.join('|')})`);
    }
  }
  // No type declared: JSON when it parses (numbers, booleans, objects), else the text.
  try {
    return { value: JSON.parse(raw) };
  } catch {
    return { value: raw };
  }
}

/** A tool result for a person: each content block, then the structured content. */
export function renderResult(result: CallToolResult, style: Style): string {
  const out: string[] = [];
  if (result.isError === true) out.push(style.red(style.bold('The tool reported an error:')));
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        // The text twin of the structured content (what servers send for older clients) is shown once.
        if (result.structuredContent === undefined || !sameJson(block.text, result.structuredContent))
          out.push(block.text);
        break;
      case 'resource_link':
        out.push(
          `${style.cyan('→')} ${block.uri}${block.name ? `  ${block.title ?? block.name}` : ''}${block.mimeType ? style.dim(` (${block.mimeType})`) : ''}`,
        );
        break;
      case 'resource': {
        const resource = block.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
        out.push(
          `${style.cyan('resource')} ${resource.uri}${resource.mimeType ? style.dim(` (${resource.mimeType})`) : ''}`,
        );
        if (resource.text !== undefined) out.push(resource.text);
        else if (resource.blob !== undefined)
          out.push(style.dim(`[${Buffer.byteLength(resource.blob, 'base64')} bytes]`));
        break;
      }
      case 'image':
      case 'audio':
        out.push(
          style.dim(`[${block.type} ${block.mimeType}, ${Buffer.byteLength(block.data, 'base64')} bytes]`),
        );
        break;
      default:
        out.push(JSON.stringify(block));
    }
  }
  if (result.structuredContent !== undefined) {
    out.push(style.dim('structured content:'));
    out.push(JSON.stringify(result.structuredContent, null, 2));
  }
  return `${out.join('\n')}\n`;
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
