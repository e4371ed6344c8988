// eraMatrix against a real Pier server: every mode (streamable HTTP on a free port in both eras, with
// and without a session, and stdio in both eras — in this process and as a spawned program), the
// questions the tools ask answered, and a difference reported only where the server really differs.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TestingError } from './errors.js';
import { matrixServer } from './fixtures/matrix-server.mjs';
import { eraMatrix, MATRIX_MODES } from './matrix.js';

const PROGRAM = fileURLToPath(new URL('./fixtures/matrix-server.mjs', import.meta.url));
// Every mode in which a tool may ask a question (a stateless 2025 HTTP server has no way to ask).
const ASKING = MATRIX_MODES.filter((mode) => mode !== '2025 stateless');

describe('eraMatrix', () => {
  it('runs each case in every mode and reports only the case whose outcome differs', async () => {
    const report = await eraMatrix(matrixServer, [
      { tool: 'echo', arguments: { text: 'hi' } },
      { name: 'which session', tool: 'session' },
      { tool: 'no_such_tool' },
    ]);
    expect(report.modes).toEqual([...MATRIX_MODES]);
    const [echo, session, missing] = report.cases;
    expect(echo?.same).toBe(true);
    for (const mode of MATRIX_MODES) {
      expect(echo?.outcomes[mode]).toEqual({
        questions: [],
        result: { content: [{ type: 'text', text: 'hi' }] },
      });
    }
    // An unknown tool is the same JSON-RPC error in every mode: the same outcome, not a difference.
    expect(missing?.same).toBe(true);
    expect(missing?.outcomes['stdio 2025']?.error).toMatchObject({ code: -32602 });
    // The negative control: the one tool that behaves differently in a 2025 session is reported.
    expect(report.differences.map((c) => c.name)).toEqual(['which session']);
    expect(session?.groups).toEqual([
      {
        modes: ['2026-07-28 stateless', '2025 stateless', 'stdio 2026-07-28', 'stdio 2025'],
        outcome: { questions: [], result: { content: [{ type: 'text', text: 'no session' }] } },
      },
      {
        modes: ['2025 session'],
        outcome: { questions: [], result: { content: [{ type: 'text', text: 'in a session' }] } },
      },
    ]);
    expect(report.summary).toContain('1 of 3 cases differ between modes:\n  which session\n');
    expect(report.summary).toContain('    2025 session: {"content":[{"type":"text","text":"in a session"}]}');
  });

  it('answers the questions a tool asks, in order, the same way in every mode', async () => {
    const report = await eraMatrix(
      matrixServer,
      [
        {
          tool: 'confirm',
          arguments: { what: 'ship' },
          answers: [
            { action: 'accept', content: { ok: true } },
            { action: 'accept', content: { reason: 'ready' } },
          ],
        },
        { tool: 'confirm', arguments: { what: 'wait' }, answers: [{ action: 'decline' }] },
        // No answer left: the question is cancelled.
        { tool: 'confirm', arguments: { what: 'skip' } },
        {
          tool: 'confirm',
          arguments: { what: 'ask' },
          answers: (question, index) =>
            index === 0
              ? { action: 'accept', content: { ok: true } }
              : { action: 'accept', content: { reason: `answered "${question.message}"` } },
        },
      ],
      { modes: ASKING },
    );
    expect(report.differences).toEqual([]);
    expect(report.summary).toBe(`all 4 cases had the same outcome in 4 modes (${ASKING.join(', ')})`);
    const outcome = (index: number) => report.cases[index]?.outcomes['stdio 2026-07-28'];
    expect(outcome(0)).toEqual({
      questions: ['Really ship?', 'Why ship?'],
      result: { content: [{ type: 'text', text: 'ship: done (ready)' }] },
    });
    expect(outcome(1)).toEqual({
      questions: ['Really wait?'],
      result: { content: [{ type: 'text', text: 'wait: kept (decline)' }] },
    });
    expect(outcome(2)?.result).toEqual({ content: [{ type: 'text', text: 'skip: kept (cancel)' }] });
    expect(outcome(3)?.result).toEqual({
      content: [{ type: 'text', text: 'ask: done (answered "Why ask?")' }],
    });
  });

  it('runs the stdio modes against a spawned program when given its command', async () => {
    const inProcess = await eraMatrix(
      matrixServer,
      [{ tool: 'session' }, { tool: 'echo', arguments: { text: 'x' } }],
      {
        modes: ['2026-07-28 stateless'],
      },
    );
    const report = await eraMatrix(
      matrixServer,
      [
        { tool: 'session' },
        { tool: 'echo', arguments: { text: 'x' } },
        { tool: 'confirm', arguments: { what: 'go' }, answers: [{ action: 'decline' }] },
      ],
      { modes: ['stdio'], stdio: { command: process.execPath, args: [PROGRAM] } },
    );
    expect(report.modes).toEqual(['stdio 2026-07-28', 'stdio 2025']);
    expect(report.differences).toEqual([]);
    expect(report.cases[0]?.outcomes['stdio 2025']).toEqual(
      inProcess.cases[0]?.outcomes['2026-07-28 stateless'],
    );
    expect(report.cases[2]?.outcomes['stdio 2025']?.questions).toEqual(['Really go?']);
  });

  it('a mode it cannot connect in is an outcome of every case, not a crash', async () => {
    const report = await eraMatrix(matrixServer, [{ tool: 'echo', arguments: { text: 'x' } }], {
      modes: ['stdio 2025', '2025 session'],
      stdio: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
      timeoutMs: 5_000,
    });
    expect(report.differences).toHaveLength(1);
    expect(report.cases[0]?.outcomes['stdio 2025']?.error?.message).toMatch(
      /^could not connect \(stdio 2025\)/,
    );
    expect(report.cases[0]?.outcomes['2025 session']?.result).toEqual({
      content: [{ type: 'text', text: 'x' }],
    });
  });

  it('compares what normalize keeps', async () => {
    const cases = [{ tool: 'ticket' }];
    const modes = ['2026-07-28 stateless', 'stdio 2025'] as const;
    const raw = await eraMatrix(matrixServer, cases, { modes });
    expect(raw.differences).toHaveLength(1);
    const normalized = await eraMatrix(matrixServer, cases, {
      modes,
      normalize: (result) => ({ ...(result.structuredContent as object), id: '<id>' }),
    });
    expect(normalized.differences).toEqual([]);
    expect(normalized.cases[0]?.outcomes['stdio 2025']?.result).toEqual({ id: '<id>', kind: 'ticket' });
  });

  it('rejects bad input with OPTIONS_INVALID naming every problem', async () => {
    const error = await eraMatrix(
      'not a factory' as never,
      [{ tool: '' }, { tool: 'echo', arguments: [] as never, answers: 'yes' as never }],
      { modes: ['2025 sessions' as never], legacyEra: '2026-07-28' as never, timeoutMs: 0 },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TestingError);
    expect((error as TestingError).code).toBe('OPTIONS_INVALID');
    expect((error as TestingError).message).toBe(
      [
        'eraMatrix: 7 problems:',
        '  - server must be a function that makes a new PierServer (got "not a factory")',
        '  - cases[0].tool must be a tool name (got "")',
        '  - cases[1].arguments must be an object (got an empty array)',
        '  - cases[1].answers must be an array of answers or a function (got "yes")',
        `  - modes: unknown mode "2025 sessions"; modes: ${MATRIX_MODES.join(', ')}, stdio`,
        '  - legacyEra must be one of 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05 (got "2026-07-28")',
        '  - timeoutMs must be a whole number of milliseconds > 0 (got 0)',
      ].join('\n'),
    );
    await expect(eraMatrix(matrixServer, [])).rejects.toThrow(/cases must be a non-empty array/);
  });
});
