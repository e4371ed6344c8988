import { describe, expect, it } from 'vitest';
import { type ConfigSpec, parseConfig, z } from './index.js';
import { formatIssue } from './issues.js';

function parse(spec: ConfigSpec, argv: string[], env: Record<string, string> = {}) {
  const result = parseConfig(spec, { argv, env });
  return {
    value: result.ok ? (result.config as Record<string, unknown>) : undefined,
    errors: result.ok ? [] : result.issues.map(formatIssue),
    warnings: result.warnings.map(formatIssue),
  };
}

describe('environment booleans', () => {
  const spec = { debug: { schema: z.boolean().default(false), env: 'DEBUG' } };

  it('are true only for the exact text true', () => {
    expect(parse(spec, [], { DEBUG: 'true' })).toEqual({ value: { debug: true }, errors: [], warnings: [] });
  });

  it.each(['false', '0', 'no', 'off', 'False'])('read %j as false without a warning', (text) => {
    expect(parse(spec, [], { DEBUG: text })).toEqual({ value: { debug: false }, errors: [], warnings: [] });
  });

  it.each(['1', 'yes', 'TRUE', 'on', 'True', ' true'])(
    'read %j as false with a warning naming the variable',
    (text) => {
      const { value, warnings } = parse(spec, [], { DEBUG: text });
      expect(value).toEqual({ debug: false });
      expect(warnings).toEqual([
        `debug (DEBUG): warning: ${JSON.stringify(text)} is read as false; only the exact text true turns it on`,
      ]);
    },
  );

  it('applies to z.coerce.boolean() too, which would read "false" as true on its own', () => {
    const coerced = { debug: { schema: z.coerce.boolean(), env: 'DEBUG' } };
    expect(parse(coerced, [], { DEBUG: 'false' }).value).toEqual({ debug: false });
    expect(parse(coerced, ['--debug']).value).toEqual({ debug: true });
  });

  it('leave z.stringbool() to its own rules, and still make it a flag', () => {
    const stringbool = { debug: { schema: z.stringbool().default(false), env: 'DEBUG' } };
    expect(parse(stringbool, [], { DEBUG: 'yes' })).toEqual({
      value: { debug: true },
      errors: [],
      warnings: [],
    });
    expect(parse(stringbool, ['--debug']).value).toEqual({ debug: true });
    expect(parse(stringbool, ['--no-debug'], { DEBUG: 'on' }).value).toEqual({ debug: false });
    expect(parse(stringbool, ['--debug=maybe']).errors[0]).toMatch(
      /^debug \(--debug\): expected one of true, 1, yes/,
    );
  });
});

describe('integers', () => {
  const spec = { retries: { schema: z.number().int(), env: 'RETRIES' } };

  it.each([
    ['42', 42],
    ['-7', -7],
    ['+3', 3],
    ['007', 7],
    ['-0', 0],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('read %j as %d, from the environment and the command line', (text, expected) => {
    expect(parse(spec, [], { RETRIES: text }).value).toEqual({ retries: expected });
    expect(parse(spec, [`--retries=${text}`]).value).toEqual({ retries: expected });
  });

  it.each(['42abc', '4.2', '1e3', '0x10', ' 42 ', '42 ', '0b1', 'Infinity', 'NaN', '--', '4_2', '١٢'])(
    'reject %j, naming the option and where the text came from',
    (text) => {
      expect(parse(spec, [], { RETRIES: text }).errors).toEqual([
        `retries (RETRIES): expected an integer, got ${JSON.stringify(text)}`,
      ]);
      expect(parse(spec, [`--retries=${text}`]).errors).toEqual([
        `retries (--retries): expected an integer, got ${JSON.stringify(text)}`,
      ]);
    },
  );

  it('reject values beyond the safe integer range', () => {
    expect(parse(spec, [], { RETRIES: '9007199254740993' }).errors).toEqual([
      'retries (RETRIES): expected an integer between -9007199254740991 and 9007199254740991, got "9007199254740993"',
    ]);
    expect(parse(spec, ['--retries', '-9007199254740992']).errors).toHaveLength(1);
  });

  it('reject an empty value as missing, not as zero', () => {
    expect(parse(spec, [], { RETRIES: '' }).errors).toEqual(['retries (RETRIES or --retries): required']);
  });

  it('are recognised through z.int(), z.int32(), z.coerce and wrappers', () => {
    for (const schema of [
      z.int(),
      z.int32(),
      z.coerce.number().int(),
      z.number().int().optional().nullable(),
    ]) {
      expect(parse({ n: { schema, env: 'N' } }, [], { N: '1e3' }).errors).toEqual([
        'n (N): expected an integer, got "1e3"',
      ]);
    }
  });

  it('still go through the schema for its own limits', () => {
    expect(parse({ n: { schema: z.int().min(1), env: 'N' } }, [], { N: '0' }).errors).toEqual([
      'n (N): Too small: expected number to be >=1',
    ]);
  });
});

describe('numbers', () => {
  const spec = { ratio: { schema: z.number(), env: 'RATIO' } };

  it.each([
    ['1.5', 1.5],
    ['-0.25', -0.25],
    ['+2', 2],
    ['.5', 0.5],
    ['10', 10],
  ])('read plain decimal %j', (text, expected) => {
    expect(parse(spec, [], { RATIO: text }).value).toEqual({ ratio: expected });
  });

  it.each(['1e3', '0x10', 'Infinity', '1.', ' 1', '1,5', 'abc'])('reject %j', (text) => {
    expect(parse(spec, [], { RATIO: text }).errors).toEqual([
      `ratio (RATIO): expected a decimal number, got ${JSON.stringify(text)}`,
    ]);
  });

  it('protect z.coerce.number() from reading an odd text as a number', () => {
    expect(parse({ n: { schema: z.coerce.number(), env: 'N' } }, [], { N: '0x10' }).errors).toHaveLength(1);
  });
});

describe('enums and literals', () => {
  it('match numeric enum values by their text', () => {
    const spec = { level: { schema: z.literal([1, 2, 3]), env: 'LEVEL' } };
    expect(parse(spec, [], { LEVEL: '2' }).value).toEqual({ level: 2 });
  });
});
