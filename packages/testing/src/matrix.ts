// eraMatrix(): the same tool calls in every era and mode a client may use — 2026-07-28 stateless, 2025
// stateless, 2025 with a session, and stdio in both eras — answering the questions the tools ask, and a
// report of every case whose outcome is not the same everywhere.
import {
  type CallToolResult,
  Client,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describeValue, OptionIssues, type PierServer } from '@pier/core';
import { connect } from './connect.js';
import { ERAS, type Era, MODERN, negotiationFor } from './eras.js';
import { messageOf, optionsError, TestingError } from './errors.js';

/**
 * Where a case runs. The three HTTP modes are streamable HTTP on 127.0.0.1 (a 2026-07-28 client; a
 * 2025 client without a session; a 2025 client with `Mcp-Session-Id`), the two stdio modes a client of
 * each era on stdio.
 */
export const MATRIX_MODES = [
  '2026-07-28 stateless',
  '2025 stateless',
  '2025 session',
  'stdio 2026-07-28',
  'stdio 2025',
] as const;
export type MatrixMode = (typeof MATRIX_MODES)[number];

/** One tool call of the matrix. */
export interface ToolCase {
  /** The tool to call. */
  readonly tool: string;
  readonly arguments?: Record<string, unknown>;
  /** The case's name in the report. Default: `tool {arguments}`. */
  readonly name?: string;
  /**
   * Answers to the questions (elicitation) the tool asks, in order, or a function that answers each.
   * When none is left the question is cancelled. Every mode gets the same answers.
   */
  readonly answers?:
    | readonly ElicitResult[]
    | ((question: ElicitRequest['params'], index: number) => ElicitResult | Promise<ElicitResult>);
}

/** Options of {@link eraMatrix}. */
export interface EraMatrixOptions {
  /**
   * The modes to run, in order. Default: all of `MATRIX_MODES`; `'stdio'` stands for both stdio
   * modes.
   */
  readonly modes?: readonly (MatrixMode | 'stdio')[];
  /** The 2025-era revision the 2025 modes offer. Default `2025-11-25`. */
  readonly legacyEra?: Exclude<Era, 'auto' | '2026-07-28'>;
  /**
   * Run the stdio modes against this command (your built server, as an MCP client spawns it) instead
   * of the server from the factory served in this process the way Pier serves stdio.
   */
  readonly stdio?: {
    readonly command: string;
    readonly args?: readonly string[];
    readonly env?: NodeJS.ProcessEnv;
    readonly cwd?: string;
  };
  /**
   * What is compared: maps a result to the value that must be equal in every mode (say, to drop an id
   * or a time). Default: the result without its `_meta` (protocol metadata a transport may add).
   */
  readonly normalize?: (result: CallToolResult, context: { mode: MatrixMode; case: string }) => unknown;
  /** Bound on each call and each connection. Default 10 000 ms. */
  readonly timeoutMs?: number;
}

/** What one case did in one mode. */
export interface CaseOutcome {
  /** The message of each question the tool asked, in order. */
  readonly questions: readonly string[];
  /** The result, normalized, when the call returned one (`isError` results included). */
  readonly result?: unknown;
  /** When the call (or the connection) failed: the JSON-RPC error code, if any, and the message. */
  readonly error?: { readonly code?: number; readonly message: string };
}

/** One case across the modes. */
export interface CaseReport {
  readonly name: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly outcomes: Readonly<Partial<Record<MatrixMode, CaseOutcome>>>;
  /** True when every mode had the same outcome. */
  readonly same: boolean;
  /** The modes grouped by equal outcome, the largest group first (one group when `same`). */
  readonly groups: readonly { readonly modes: readonly MatrixMode[]; readonly outcome: CaseOutcome }[];
}

/** What {@link eraMatrix} resolves with. */
export interface EraMatrixReport {
  readonly modes: readonly MatrixMode[];
  readonly cases: readonly CaseReport[];
  /** The cases whose outcome differs between modes (`[]` when the server behaves the same everywhere). */
  readonly differences: readonly CaseReport[];
  /** The differences for a person (or `all N cases had the same outcome in M modes`). */
  readonly summary: string;
}

/**
 * Calls each case against a fresh server in every mode — 2026-07-28 stateless, 2025 stateless, 2025
 * with a session (streamable HTTP on a free port) and stdio in both eras — answering the questions the
 * tools ask, and reports the cases whose outcomes differ between modes.
 *
 * `server` makes a new server for each mode (so that what one mode changed never leaks into the next);
 * cases run in order within a mode, modes one after another.
 *
 * @example
 * ```ts
 * const report = await eraMatrix(() => createServer(NotesServer, { handleSignals: false }), [
 *   { tool: 'add_note', arguments: { title: 'a' } },
 *   { tool: 'delete_note', arguments: { id: '1' }, answers: [{ action: 'accept', content: { confirm: true } }] },
 * ]);
 * expect(report.differences, report.summary).toEqual([]);
 * ```
 */
export async function eraMatrix(
  server: () => PierServer | Promise<PierServer>,
  cases: readonly ToolCase[],
  options: EraMatrixOptions = {},
): Promise<EraMatrixReport> {
  const modes = checkMatrix(server, cases, options);
  const legacy = options.legacyEra ?? '2025-11-25';
  const timeoutMs = options.timeoutMs ?? 10_000;
  const normalize = options.normalize ?? withoutMeta;
  const names = cases.map(caseName);
  const outcomes = cases.map(() => ({}) as Partial<Record<MatrixMode, CaseOutcome>>);

  for (const mode of modes) {
    const era: Era = mode.includes(MODERN) ? MODERN : legacy;
    // The case being called answers the questions: a connection serves one case at a time.
    let current: { answers: ToolCase['answers']; asked: string[] } = { answers: undefined, asked: [] };
    const onElicit = async (question: ElicitRequest['params']): Promise<ElicitResult> => {
      const index = current.asked.push(question.message) - 1;
      const { answers } = current;
      if (typeof answers === 'function') return answers(question, index);
      return answers?.[index] ?? { action: 'cancel' };
    };
    let session: { client: Client; close(): Promise<void> };
    try {
      session = await open(server, mode, era, onElicit, options, timeoutMs);
    } catch (error) {
      const failed: CaseOutcome = {
        questions: [],
        error: { message: `could not connect (${mode}): ${messageOf(error)}` },
      };
      for (const outcome of outcomes) outcome[mode] = failed;
      continue;
    }
    try {
      for (const [index, testCase] of cases.entries()) {
        current = { answers: testCase.answers, asked: [] };
        const name = names[index] as string;
        let outcome: CaseOutcome;
        try {
          const result = (await session.client.callTool(
            { name: testCase.tool, arguments: { ...testCase.arguments } },
            { timeout: timeoutMs },
          )) as CallToolResult;
          outcome = { questions: current.asked, result: normalize(result, { mode, case: name }) };
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          outcome = {
            questions: current.asked,
            error: { ...(typeof code === 'number' && { code }), message: messageOf(error) },
          };
        }
        (outcomes[index] as Partial<Record<MatrixMode, CaseOutcome>>)[mode] = outcome;
      }
    } finally {
      await session.close();
    }
  }

  const reports = cases.map((testCase, index): CaseReport => {
    const byMode = outcomes[index] as Partial<Record<MatrixMode, CaseOutcome>>;
    const groups = groupModes(modes, byMode);
    return {
      name: names[index] as string,
      tool: testCase.tool,
      arguments: { ...testCase.arguments },
      outcomes: byMode,
      same: groups.length <= 1,
      groups,
    };
  });
  const differences = reports.filter((report) => !report.same);
  return { modes, cases: reports, differences, summary: summarize(modes, reports, differences) };
}

/** A connected client for `mode`, and what closes it (and the server it started). */
async function open(
  factory: () => PierServer | Promise<PierServer>,
  mode: MatrixMode,
  era: Era,
  onElicit: (question: ElicitRequest['params']) => Promise<ElicitResult>,
  options: EraMatrixOptions,
  timeoutMs: number,
): Promise<{ client: Client; close(): Promise<void> }> {
  if (mode.startsWith('stdio') && options.stdio !== undefined)
    return spawnStdio(options.stdio, era, onElicit, timeoutMs);
  const server = await factory();
  if (mode.startsWith('stdio')) {
    // In this process: the in-memory transport, served the way Pier serves a stdio connection.
    const connected = await connect(server, { era, transport: 'memory', onElicit, timeoutMs });
    return {
      client: connected.client,
      close: async () => {
        await connected.close();
        await server.close();
      },
    };
  }
  // connect() starts the server on a free port and closes it again.
  return connect(server, {
    era,
    transport: 'http',
    http: { sessions: mode === '2025 session' },
    onElicit,
    timeoutMs,
  });
}

async function spawnStdio(
  stdio: NonNullable<EraMatrixOptions['stdio']>,
  era: Era,
  onElicit: (question: ElicitRequest['params']) => Promise<ElicitResult>,
  timeoutMs: number,
): Promise<{ client: Client; close(): Promise<void> }> {
  const client = new Client(
    { name: 'pier-testing', version: '0.0.0' },
    { ...negotiationFor(era), capabilities: { elicitation: { form: {}, url: {} } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => onElicit(request.params));
  const env = Object.fromEntries(
    Object.entries(stdio.env ?? process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
  const transport = new StdioClientTransport({
    command: stdio.command,
    args: [...(stdio.args ?? [])],
    env,
    stderr: 'pipe',
    ...(stdio.cwd !== undefined && { cwd: stdio.cwd }),
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 16_000) stderr += chunk.toString('utf8');
  });
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new TestingError(
      'CONNECT_FAILED',
      `${messageOf(error)}${stderr === '' ? '' : `; stderr: ${stderr.trim()}`}`,
      {
        cause: error,
      },
    );
  }
  return { client, close: () => client.close() };
}

function checkMatrix(server: unknown, cases: readonly ToolCase[], options: EraMatrixOptions): MatrixMode[] {
  const issues = new OptionIssues('eraMatrix');
  if (typeof server !== 'function') {
    issues.add(`server must be a function that makes a new PierServer (got ${describeValue(server)})`);
  }
  if (!Array.isArray(cases) || cases.length === 0) {
    issues.add('cases must be a non-empty array of { tool, arguments?, answers? }');
  } else {
    cases.forEach((testCase, index) => {
      if (typeof testCase?.tool !== 'string' || testCase.tool === '') {
        issues.add(`cases[${index}].tool must be a tool name (got ${describeValue(testCase?.tool)})`);
      }
      const args = testCase?.arguments;
      if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
        issues.add(`cases[${index}].arguments must be an object (got ${describeValue(args)})`);
      }
      const answers = testCase?.answers;
      if (answers !== undefined && typeof answers !== 'function' && !Array.isArray(answers)) {
        issues.add(
          `cases[${index}].answers must be an array of answers or a function (got ${describeValue(answers)})`,
        );
      }
    });
  }
  const modes: MatrixMode[] = [];
  for (const mode of options.modes ?? MATRIX_MODES) {
    const expanded: readonly string[] = mode === 'stdio' ? ['stdio 2026-07-28', 'stdio 2025'] : [mode];
    for (const one of expanded) {
      if (!(MATRIX_MODES as readonly string[]).includes(one)) {
        issues.add(`modes: unknown mode ${describeValue(one)}; modes: ${MATRIX_MODES.join(', ')}, stdio`);
      } else if (!modes.includes(one as MatrixMode)) modes.push(one as MatrixMode);
    }
  }
  if (options.modes !== undefined && modes.length === 0 && issues.count === 0) {
    issues.add('modes must name at least one mode');
  }
  const legacy = options.legacyEra;
  if (
    legacy !== undefined &&
    ((legacy as string) === MODERN || !(ERAS as readonly string[]).includes(legacy))
  ) {
    issues.add(`legacyEra must be one of ${ERAS.slice(1).join(', ')} (got ${describeValue(legacy)})`);
  }
  if (
    options.stdio !== undefined &&
    (typeof options.stdio.command !== 'string' || options.stdio.command === '')
  ) {
    issues.add(`stdio.command must be a non-empty string (got ${describeValue(options.stdio.command)})`);
  }
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0)) {
    issues.add(`timeoutMs must be a whole number of milliseconds > 0 (got ${describeValue(timeoutMs)})`);
  }
  issues.throwIfAny(optionsError);
  return modes;
}

function caseName(testCase: ToolCase): string {
  return testCase.name ?? `${testCase.tool} ${JSON.stringify(testCase.arguments ?? {})}`;
}

function withoutMeta(result: CallToolResult): unknown {
  const { _meta: _dropped, ...rest } = result;
  return rest;
}

function groupModes(
  modes: readonly MatrixMode[],
  outcomes: Partial<Record<MatrixMode, CaseOutcome>>,
): { modes: MatrixMode[]; outcome: CaseOutcome }[] {
  const groups = new Map<string, { modes: MatrixMode[]; outcome: CaseOutcome }>();
  for (const mode of modes) {
    const outcome = outcomes[mode];
    if (outcome === undefined) continue;
    const key = stableJson(outcome);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { modes: [mode], outcome });
    else group.modes.push(mode);
  }
  return [...groups.values()].sort((a, b) => b.modes.length - a.modes.length);
}

/** JSON with object keys sorted, so that key order never counts as a difference. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(
          Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : item,
  );
}

function summarize(
  modes: readonly MatrixMode[],
  reports: readonly CaseReport[],
  differences: readonly CaseReport[],
): string {
  if (differences.length === 0) {
    return `all ${reports.length} cases had the same outcome in ${modes.length} modes (${modes.join(', ')})`;
  }
  const lines = [`${differences.length} of ${reports.length} cases differ between modes:`];
  for (const report of differences) {
    lines.push(`  ${report.name}`);
    for (const group of report.groups) {
      lines.push(`    ${group.modes.join(', ')}: ${describeOutcome(group.outcome)}`);
    }
  }
  return lines.join('\n');
}

function describeOutcome(outcome: CaseOutcome): string {
  const asked = outcome.questions.length === 0 ? '' : `asked ${JSON.stringify(outcome.questions)}; `;
  const what =
    outcome.error !== undefined
      ? `error${outcome.error.code === undefined ? '' : ` ${outcome.error.code}`}: ${outcome.error.message}`
      : JSON.stringify(outcome.result);
  return `${asked}${what.length > 300 ? `${what.slice(0, 300)}…` : what}`;
}
