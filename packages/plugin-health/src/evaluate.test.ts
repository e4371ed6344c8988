import { afterEach, describe, expect, it, vi } from 'vitest';
import { type HealthCheckDefinition, normalizeOptions } from './definitions.js';
import { describeFailure, type HealthEvaluation, HealthEvaluator, readResult } from './evaluate.js';
import { gate } from './test-http.js';

afterEach(() => {
  vi.useRealTimers();
});

function evaluator(
  checks: HealthCheckDefinition[],
  options: {
    cacheTtlMs?: number;
    now?: () => number;
    onEvaluation?: (evaluation: HealthEvaluation) => void;
  } = {},
): HealthEvaluator {
  const { checks: normalized } = normalizeOptions({ checks });
  return new HealthEvaluator(normalized, { cacheTtlMs: 0, ...options });
}

describe('readResult', () => {
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  const throwingStatus = {
    get status(): never {
      throw new Error('getter exploded');
    },
  };

  it.each([
    [{ status: 'healthy' }, { status: 'healthy' }],
    [
      { status: 'degraded', message: 'slow' },
      { status: 'degraded', message: 'slow' },
    ],
    [
      { status: 'unhealthy', details: { at: new Date(0), list: [1, 'a'] } },
      { status: 'unhealthy', details: { at: '1970-01-01T00:00:00.000Z', list: [1, 'a'] } },
    ],
    [{ status: 'healthy', extra: 'ignored' }, { status: 'healthy' }],
  ])('accepts %j', (value, expected) => {
    expect(readResult(value)).toEqual(expected);
  });

  it.each([
    ['undefined', undefined, 'invalid result: expected an object with a "status", got nothing'],
    ['null', null, 'invalid result: expected an object with a "status", got null'],
    ['a bare string', 'healthy', 'invalid result: expected an object with a "status", got "healthy"'],
    ['a number', 200, 'invalid result: expected an object with a "status", got 200'],
    [
      'an array',
      [{ status: 'healthy' }],
      'invalid result: expected an object with a "status", got an array of 1',
    ],
    [
      'an unknown status',
      { status: 'ok' },
      'invalid result: "status" must be "healthy", "degraded" or "unhealthy", got "ok"',
    ],
    [
      'an upper-case status',
      { status: 'HEALTHY' },
      'invalid result: "status" must be "healthy", "degraded" or "unhealthy", got "HEALTHY"',
    ],
    [
      'an inherited name as status',
      { status: 'toString' },
      'invalid result: "status" must be "healthy", "degraded" or "unhealthy", got "toString"',
    ],
    [
      'a non-string message',
      { status: 'healthy', message: 42 },
      'invalid result: "message" must be a string, got 42',
    ],
    [
      'function details',
      { status: 'healthy', details: () => 1 },
      'invalid result: "details" must be JSON-serialisable, got a function',
    ],
    [
      'BigInt details',
      { status: 'healthy', details: 10n },
      'invalid result: its result could not be read: Do not know how to serialize a BigInt',
    ],
    [
      'circular details',
      { status: 'healthy', details: circular },
      expect.stringMatching(/^invalid result: its result could not be read: Converting circular/),
    ],
    ['a throwing getter', throwingStatus, 'invalid result: its result could not be read: getter exploded'],
  ])('rejects %s as unhealthy', (_label, value, error) => {
    expect(readResult(value)).toEqual({ status: 'unhealthy', error });
  });

  it("keeps a snapshot of details, not the check's live object", () => {
    const details = { connections: 1 };
    const fields = readResult({ status: 'healthy', details });
    details.connections = 99;
    expect(fields.details).toEqual({ connections: 1 });
  });
});

describe('describeFailure', () => {
  it.each([
    [new Error('connect ECONNREFUSED'), 'connect ECONNREFUSED'],
    [new TypeError('fetch failed'), 'fetch failed'],
    [new Error(), 'Error without a message'],
    [new RangeError(''), 'RangeError without a message'],
    [{ message: 'an error-like object' }, 'an error-like object'],
    ['connection refused', 'failed with a non-Error value: "connection refused"'],
    [42, 'failed with a non-Error value: 42'],
    [false, 'failed with a non-Error value: false'],
    [undefined, 'failed with a non-Error value: nothing'],
    [null, 'failed with a non-Error value: null'],
    [{ password: 'hunter2' }, 'failed with a non-Error value: an object'],
    [['a'], 'failed with a non-Error value: an array of 1'],
    [Symbol('s'), 'failed with a non-Error value: a symbol'],
  ])('%# → %s', (reason, expected) => {
    expect(describeFailure(reason)).toBe(expected);
  });

  it('survives a value whose every property access throws', () => {
    const unreadable = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    expect(describeFailure(unreadable)).toBe('failed with a value that could not be read');
  });

  it('never includes a stack, and bounds the length', () => {
    const error = new Error('x'.repeat(10_000));
    const text = describeFailure(error);
    expect(text).toBe(`${'x'.repeat(500)}…`);
    expect(text).not.toContain('    at ');
  });
});

describe('HealthEvaluator', () => {
  it('runs checks in parallel', async () => {
    const secondStarted = gate();
    const run = evaluator([
      {
        name: 'first',
        critical: true,
        timeoutMs: 10_000,
        check: async () => {
          await secondStarted.promise; // only settles if "second" is called while "first" is pending
          return { status: 'healthy' };
        },
      },
      {
        name: 'second',
        critical: true,
        check: async () => {
          secondStarted.open();
          return { status: 'healthy' };
        },
      },
    ]);
    expect((await run.evaluate()).status).toBe('healthy');
  });

  it('counts a check that throws synchronously, or returns a plain value, like an async one', async () => {
    const evaluation = await evaluator([
      {
        name: 'sync-throw',
        critical: true,
        check: () => {
          throw new Error('sync boom');
        },
      },
      { name: 'sync-value', critical: false, check: () => ({ status: 'degraded' }) },
    ]).evaluate();
    expect(evaluation.checks).toEqual([
      {
        name: 'sync-throw',
        critical: true,
        status: 'unhealthy',
        durationMs: expect.any(Number),
        error: 'sync boom',
      },
      { name: 'sync-value', critical: false, status: 'degraded', durationMs: expect.any(Number) },
    ]);
    expect(evaluation.status).toBe('unhealthy');
  });

  it('aborts the signal of a check that times out, with a TimeoutError', async () => {
    let signal: AbortSignal | undefined;
    const evaluation = await evaluator([
      {
        name: 'hangs',
        critical: false,
        timeoutMs: 20,
        check: (context) => {
          signal = context.signal;
          return new Promise(() => {});
        },
      },
    ]).evaluate();
    expect(evaluation.checks[0]).toMatchObject({
      status: 'unhealthy',
      timedOut: true,
      error: 'timed out after 20 ms',
    });
    expect(evaluation.status).toBe('degraded');
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as DOMException | undefined)?.name).toBe('TimeoutError');
  });

  it('keeps the first outcome: a result arriving after the timeout changes nothing', async () => {
    const late = gate<{ status: 'healthy' }>();
    const run = evaluator([{ name: 'late', critical: true, timeoutMs: 20, check: () => late.promise }]);
    const evaluation = await run.evaluate();
    late.open({ status: 'healthy' });
    await late.promise;
    expect(evaluation.checks[0]).toMatchObject({ status: 'unhealthy', timedOut: true });
  });

  it('reuses a finished evaluation until cacheTtlMs has passed', async () => {
    let now = 1000;
    let calls = 0;
    const run = evaluator(
      [
        {
          name: 'db',
          critical: true,
          check: async () => {
            calls += 1;
            return { status: 'healthy' };
          },
        },
      ],
      { cacheTtlMs: 500, now: () => now },
    );
    const first = await run.evaluate();
    now += 499;
    expect(await run.evaluate()).toBe(first);
    now += 1;
    const second = await run.evaluate();
    expect(second).not.toBe(first);
    expect(calls).toBe(2);
  });

  it('reports each run once, however many callers shared it', async () => {
    const seen: HealthEvaluation[] = [];
    const run = evaluator([{ name: 'db', critical: true, check: async () => ({ status: 'healthy' }) }], {
      onEvaluation: (evaluation) => seen.push(evaluation),
    });
    const shared = await Promise.all([run.evaluate(), run.evaluate(), run.evaluate()]);
    expect(new Set(shared).size).toBe(1);
    expect(seen).toEqual([shared[0]]);
  });

  it('close() ends running checks, clears their timers, and calls no check afterwards', async () => {
    vi.useFakeTimers();
    let calls = 0;
    let signal: AbortSignal | undefined;
    const run = evaluator([
      {
        name: 'hangs',
        critical: true,
        timeoutMs: 60_000,
        check: (context) => {
          calls += 1;
          signal = context.signal;
          return new Promise(() => {});
        },
      },
    ]);
    const pending = run.evaluate();
    expect(vi.getTimerCount()).toBe(1);
    run.close();
    expect(vi.getTimerCount()).toBe(0);
    expect(signal?.aborted).toBe(true);
    expect((await pending).checks[0]).toMatchObject({
      status: 'unhealthy',
      error: 'abandoned: the health plugin was closed',
    });
    expect((await run.evaluate()).checks[0]).toMatchObject({
      status: 'unhealthy',
      error: 'the health plugin is closed',
    });
    expect(calls).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});
