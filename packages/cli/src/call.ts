// `pier call <tool> [key=value…] [--args JSON] (<url> | -- command args…)`: one tool call, its result
// printed for a person (or as JSON), questions the tool asks answered on the terminal or by --answer.
import type { CallToolResult, ElicitRequest, ElicitResult, Tool } from '@modelcontextprotocol/client';
import { closest, parseFlags } from './args.js';
import { askOnTerminal } from './ask.js';
import { CliError, messageOf, usage } from './errors.js';
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
  const { flags, positionals, tail } = parseFlags('call', argv, {
    args: { type: 'string' },
    answer: { type: 'string', multiple: true },
    era: { type: 'string' },
    header: { type: 'string', multiple: true },
    json: { type: 'boolean' },
  });
  if (flags.help) return printHelp(io, CALL_HELP);
  const [name, ...rest] = positionals;
  if (name === undefined || /^https?:\/\//i.test(name))
    throw usage('call: which tool? pier call <tool> [key=value…] <url | -- command>');
  // The URL, if any, is the last positional that is not key=value.
  const urlIndex = rest.findIndex((word) => /^https?:\/\//i.test(word));
  const url = urlIndex === -1 ? undefined : rest[urlIndex];
  const pairs = rest.filter((_, index) => index !== urlIndex);
  const target = parseTarget('call', url, tail);
  const era = parseEra('call', flags.era);
  const base = parseArgsJson(flags.args);
  const answers = (flags.answer ?? []).map(parseAnswer);
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
    connectTarget(target, { era, onElicit, headers: headerFlags(flags.header), cwd: io.cwd, env: io.env }),
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
    const args = { ...base, ...typedPairs(pairs, tool) };
    checkRequired(tool, args);
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

function parseArgsJson(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw usage(`call: --args is not JSON: ${messageOf(error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw usage('call: --args must be a JSON object, such as {"city":"Oslo"}');
  }
  return value as Record<string, unknown>;
}

function parseAnswer(text: string): ElicitResult {
  if (text === 'decline' || text === 'cancel') return { action: text };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw usage(`call: --answer must be a JSON object, decline or cancel: ${messageOf(error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw usage("call: --answer must be a JSON object (the answer's fields), decline or cancel");
  }
  return { action: 'accept', content: value as ElicitResult['content'] };
}

/** key=value pairs typed by the tool's input schema; a usage error names a pair that does not fit. */
export function typedPairs(pairs: readonly string[], tool: Tool): Record<string, unknown> {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) {
      throw usage(`call: "${pair.slice(0, 40)}" is neither key=value nor a URL; arguments are key=value`);
    }
    const key = pair.slice(0, at);
    const raw = pair.slice(at + 1);
    const property = properties[key];
    // An argument the schema does not name: refused when the schema allows no others, and when it is a
    // typo of one it names (a server that strips unknown keys would otherwise say the real one is missing).
    const near = property === undefined ? closest(key, Object.keys(properties)) : undefined;
    if (property === undefined && (tool.inputSchema.additionalProperties === false || near !== undefined)) {
      throw usage(
        `call: ${tool.name} takes no argument "${key}"${near === undefined ? '' : ` (did you mean ${near}?)`}; it takes: ${Object.keys(properties).join(', ') || 'none'}`,
      );
    }
    out[key] = coerce(key, raw, property?.type);
  }
  return out;
}

/** A usage error naming the required arguments `args` lacks, with the call that would give them. */
export function checkRequired(tool: Tool, args: Record<string, unknown>): void {
  const required = (tool.inputSchema.required as string[] | undefined) ?? [];
  const missing = required.filter((key) => args[key] === undefined);
  if (missing.length === 0) return;
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const typed = missing.map((key) => {
    const type = properties[key]?.type;
    return `${key} (${Array.isArray(type) ? type.join('|') : typeof type === 'string' ? type : 'any'})`;
  });
  throw usage(
    `call: ${tool.name} needs ${typed.join(', ')}: pier call ${tool.name} ${missing.map((key) => `${key}=…`).join(' ')} …`,
  );
}

function coerce(key: string, raw: string, type: unknown): unknown {
  const types = Array.isArray(type) ? type : [type];
  if (types.includes('string')) return raw;
  if (types.includes('integer') || types.includes('number')) {
    const value = Number(raw);
    if (
      raw.trim() === '' ||
      !Number.isFinite(value) ||
      (types.includes('integer') && !types.includes('number') && !Number.isInteger(value))
    ) {
      throw usage(
        `call: ${key} must be ${types.includes('integer') ? 'a whole number' : 'a number'} (got "${raw.slice(0, 30)}")`,
      );
    }
    return value;
  }
  if (types.includes('boolean')) {
    if (raw === 'true' || raw === 'false') return raw === 'true';
    throw usage(`call: ${key} must be true or false (got "${raw.slice(0, 30)}")`);
  }
  if (types.includes('object') || types.includes('array') || types.includes('null')) {
    try {
      return JSON.parse(raw);
    } catch {
      throw usage(`call: ${key} must be JSON (${types.join('|')}) (got "${raw.slice(0, 30)}")`);
    }
  }
  // No type declared: JSON when it parses (numbers, booleans, objects), else the text.
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
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
