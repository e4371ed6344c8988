// A tool's question (elicitation) asked on the terminal: the message, each field of the requested form
// with its type, default and choices, then whether to send, decline or cancel. Written to stderr, so
// stdout stays the tool's result.
import { createInterface } from 'node:readline/promises';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import type { Io, Style } from './io.js';

interface Field {
  readonly type?: string;
  readonly title?: string;
  readonly description?: string;
  readonly enum?: readonly unknown[];
  readonly oneOf?: readonly { const: unknown; title?: string }[];
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
}

export async function askOnTerminal(
  io: Io,
  params: ElicitRequest['params'],
  style: Style,
): Promise<ElicitResult> {
  const terminal = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  let ended = false;
  terminal.on('close', () => {
    ended = true;
  });
  const ask = async (question: string): Promise<string | undefined> => {
    if (ended) return undefined;
    try {
      return await terminal.question(question);
    } catch {
      return undefined; // Ctrl-C or Ctrl-D
    }
  };
  const cancelled = (): ElicitResult => {
    io.stderr.write(`\n  ${style.dim('cancelled')}\n`);
    return { action: 'cancel' };
  };
  try {
    io.stderr.write(`\n${style.bold(style.yellow('?'))} ${style.bold(params.message)}\n`);
    if (params.mode === 'url') {
      io.stderr.write(`  Open ${style.cyan(params.url)} and finish there.\n`);
      const done = await ask(`  ${style.dim('Enter when done, n to decline:')} `);
      if (done === undefined) return cancelled();
      return done.trim().toLowerCase().startsWith('n') ? { action: 'decline' } : { action: 'accept' };
    }
    const schema = params.requestedSchema as { properties?: Record<string, Field>; required?: string[] };
    const required = new Set(schema.required ?? []);
    const content: Record<string, string | number | boolean | string[]> = {};
    for (const [name, field] of Object.entries(schema.properties ?? {})) {
      const value = await askField(ask, io, style, name, field, required.has(name));
      if (value === CANCELLED) return cancelled();
      if (value !== undefined) content[name] = value;
    }
    const send = await ask(`  ${style.bold('Send?')} ${style.dim('[Y]es, [n]o (decline), [c]ancel:')} `);
    if (send === undefined) return cancelled();
    const choice = send.trim().toLowerCase();
    if (choice.startsWith('c')) return { action: 'cancel' };
    if (choice.startsWith('n')) return { action: 'decline' };
    return { action: 'accept', content };
  } finally {
    terminal.close();
  }
}

const CANCELLED = Symbol('cancelled');

async function askField(
  ask: (question: string) => Promise<string | undefined>,
  io: Io,
  style: Style,
  name: string,
  field: Field,
  required: boolean,
): Promise<string | number | boolean | undefined | typeof CANCELLED> {
  const choices =
    field.oneOf?.map((c) => ({ value: c.const, label: c.title ?? String(c.const) })) ??
    field.enum?.map((value) => ({ value, label: String(value) }));
  const type = field.type ?? 'string';
  const hint =
    choices !== undefined
      ? choices.map((c, i) => `${i + 1}) ${c.label}`).join('  ')
      : type === 'boolean'
        ? 'y/n'
        : type;
  const label = field.title ?? name;
  if (field.description !== undefined) io.stderr.write(`  ${style.dim(field.description)}\n`);
  for (let attempt = 0; attempt < 5; attempt++) {
    const fallback = field.default === undefined ? '' : ` [${String(field.default)}]`;
    const answer = await ask(`  ${label}${required ? '*' : ''} ${style.dim(`(${hint})`)}${fallback}: `);
    if (answer === undefined) return CANCELLED;
    const text = answer.trim();
    if (text === '') {
      if (field.default !== undefined) return field.default as string | number | boolean;
      if (!required) return undefined;
      io.stderr.write(`  ${style.red(`${label} is required`)}\n`);
      continue;
    }
    if (choices !== undefined) {
      const index = Number(text);
      const picked =
        Number.isInteger(index) && index >= 1
          ? choices[index - 1]
          : choices.find((c) => String(c.value) === text || c.label === text);
      if (picked !== undefined) return picked.value as string | number | boolean;
      io.stderr.write(`  ${style.red(`choose one of: ${choices.map((c) => c.label).join(', ')}`)}\n`);
      continue;
    }
    if (type === 'boolean') {
      if (/^(y|yes|true)$/i.test(text)) return true;
      if (/^(n|no|false)$/i.test(text)) return false;
      io.stderr.write(`  ${style.red('answer y or n')}\n`);
      continue;
    }
    if (type === 'number' || type === 'integer') {
      const value = Number(text);
      const whole = type === 'integer';
      if (!Number.isFinite(value) || (whole && !Number.isInteger(value))) {
        io.stderr.write(`  ${style.red(`a ${whole ? 'whole ' : ''}number, please`)}\n`);
        continue;
      }
      if (
        (field.minimum !== undefined && value < field.minimum) ||
        (field.maximum !== undefined && value > field.maximum)
      ) {
        io.stderr.write(
          `  ${style.red(`between ${field.minimum ?? '-∞'} and ${field.maximum ?? '∞'}, please`)}\n`,
        );
        continue;
      }
      return value;
    }
    return text;
  }
  return CANCELLED;
}
