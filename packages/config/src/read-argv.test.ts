import { describe, expect, it } from 'vitest';
import { parseConfig, type UnknownPolicy } from './index.js';
import { formatIssue } from './issues.js';
import { CANARY, seedSpec } from './test-seed-spec.js';

const env = { API_KEY: 'sk-test-0000000000000000' };

function run(argv: string[], unknown?: UnknownPolicy) {
  const result = parseConfig(seedSpec, { argv, env, ...(unknown === undefined ? {} : { unknown }) });
  return {
    ok: result.ok,
    errors: result.ok ? [] : result.issues.map(formatIssue),
    warnings: result.warnings.map(formatIssue),
  };
}

describe('unknown options', () => {
  it('are errors by default, with a suggestion that never shows the value', () => {
    expect(run(['--max-retrys', CANARY])).toEqual({
      ok: false,
      errors: ['--max-retrys (argv[0]): unknown option; did you mean --max-retries?'],
      warnings: [],
    });
    expect(run([`--apikey=${CANARY}`]).errors).toEqual([
      '--apikey (argv[0]): unknown option; did you mean --api-key?',
    ]);
  });

  it('point to --help when no flag is close', () => {
    expect(run(['--verbose']).errors).toEqual([
      '--verbose (argv[0]): unknown option; see --help for the options',
    ]);
  });

  it('name the variable when the option has no flag', () => {
    expect(run(['--log-level', 'debug']).errors).toEqual([
      '--log-level (argv[0]): unknown option; logLevel is read from the variable LOG_LEVEL only',
    ]);
    expect(run(['--DATABASE_URL', CANARY]).errors).toEqual([
      '--DATABASE_URL (argv[0]): unknown option; databaseUrl is read from the variable DATABASE_URL only',
    ]);
  });

  it('can be warnings instead, and the configuration is still returned', () => {
    expect(run(['--max-retrys', '9', '--debug'], 'warn')).toEqual({
      ok: true,
      errors: [],
      warnings: ['--max-retrys (argv[0]): warning: unknown option; did you mean --max-retries?'],
    });
  });

  it('can be ignored', () => {
    expect(run(['--max-retrys', '9', 'stray'], 'ignore')).toEqual({ ok: true, errors: [], warnings: [] });
  });

  it('suggest the negation of a boolean flag', () => {
    expect(run(['--no-debgu']).errors).toEqual([
      '--no-debgu (argv[0]): unknown option; did you mean --no-debug?',
    ]);
  });
});

describe('an argument holding a space', () => {
  it('gets a hint to split it, showing only the option part', () => {
    expect(run(['--timeout 8000']).errors).toEqual([
      '--timeout (argv[0]): one argument holds a space; give the option and its value as two entries: "--timeout", "<value>"',
    ]);
    const [line] = run([`--api-key ${CANARY}`]).errors;
    expect(line).toMatch(/^--api-key \(argv\[0\]\): one argument holds a space/);
    expect(line).not.toContain(CANARY);
  });

  it('is fine as the value of --name=value', () => {
    expect(run(['--base-url=https://x.example/a b']).errors).toEqual([]);
  });
});

describe('positional arguments', () => {
  it('are reported by position, never by text', () => {
    const { errors } = run(['--timeout', '10', CANARY]);
    expect(errors).toEqual(['argv (argv[2]): unexpected argument; options are written --name value']);
  });

  it('after a boolean flag explain that the flag takes no such value', () => {
    expect(run(['--no-debug', 'false']).errors).toEqual([
      'argv (argv[1]): unexpected argument after --no-debug, which takes no value',
    ]);
  });

  it('are returned when not treated as errors', () => {
    const result = parseConfig(seedSpec, { argv: ['a', '--', '--b'], env, unknown: 'ignore' });
    expect(result.ok && result.positionals).toEqual(['a', '--b']);
  });
});
