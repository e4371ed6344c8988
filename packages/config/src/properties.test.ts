import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue, configReport, loadConfig, parseArgs, parseConfig } from './index.js';
import { formatIssue } from './issues.js';
import { CANARY, seedSpec } from './test-seed-spec.js';

const ISSUE_CODES = new Set([
  'required',
  'missing_value',
  'invalid_integer',
  'invalid_number',
  'invalid_boolean',
  'invalid_value',
  'unknown_option',
  'unexpected_argument',
  'ambiguous_boolean',
]);
const FLAGS = [
  '--api-key',
  '--base-url',
  '--debug',
  '--no-debug',
  '--max-retries',
  '--timeout',
  '--help',
  '--',
];
const VARIABLES = ['API_KEY', 'BASE_URL', 'DEBUG', 'MAX_RETRIES', 'TIMEOUT', 'DATABASE_URL', 'LOG_LEVEL'];

/** Tokens a client could plausibly send, and plenty it should not. */
const token = fc.oneof(
  fc.constantFrom(...FLAGS),
  fc.constantFrom('true', 'false', '', '-5', '42', '4.2', '1e3', 'debug', 'https://x.example', '-', '--no-'),
  fc.string().map((text) => `--${text}`),
  fc.tuple(fc.constantFrom(...FLAGS), fc.string()).map(([flag, value]) => `${flag}=${value}`),
  fc.string({ unit: 'binary' }),
);
const argv = fc.array(token, { maxLength: 12 });
const value = fc.oneof(
  fc.constantFrom('', 'true', '1', 'yes', '3', '-0', 'info', 'https://a.example'),
  fc.string(),
);
const env = fc.dictionary(fc.oneof(fc.constantFrom(...VARIABLES), fc.string()), value);

function isConfigIssue(issue: ConfigIssue): boolean {
  return (
    ISSUE_CODES.has(issue.code) &&
    (issue.severity === 'error' || issue.severity === 'warning') &&
    [issue.path, issue.source, issue.message].every((text) => typeof text === 'string' && text !== '') &&
    !/[\r\n\u2028\u2029]/.test(formatIssue(issue))
  );
}

describe('properties', () => {
  it('parseArgs never throws, and only returns names and positionals taken from argv', () => {
    fc.assert(
      fc.property(argv, (args) => {
        const parsed = parseArgs(args);
        for (const positional of parsed.positionals) expect(args).toContain(positional);
        for (const name of Object.keys(parsed.options)) {
          expect(args.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`))).toBe(true);
        }
      }),
    );
  });

  it('parseConfig returns a configuration or typed one-line issues, and throws nothing', () => {
    fc.assert(
      fc.property(
        argv,
        env,
        fc.constantFrom('error', 'warn', 'ignore') as fc.Arbitrary<'error'>,
        (args, vars, unknown) => {
          const result = parseConfig(seedSpec, { argv: args, env: vars, unknown });
          expect(result.warnings.every(isConfigIssue)).toBe(true);
          if (result.ok) {
            expect(Object.isFrozen(result.config)).toBe(true);
            expect(typeof result.config.timeout).toBe('number');
          } else {
            expect(result.issues.length).toBeGreaterThan(0);
            expect(result.issues.every((issue) => isConfigIssue(issue) && issue.severity === 'error')).toBe(
              true,
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  /** Ways a secret reaches the program: its variable, its flag, a mistyped flag, one spaced entry, after `--`. */
  const canaryArgv = fc.constantFrom(
    [],
    ['--api-key', CANARY],
    [`--api-key=${CANARY}`],
    ['--apikey', CANARY],
    [`--api-key ${CANARY}`],
    ['--', CANARY],
  );
  const canaryEnv = fc.constantFrom(
    {},
    { API_KEY: CANARY },
    { DATABASE_URL: CANARY },
    { DATABASE_URL: `pg://u:${CANARY}@h` },
  );

  it('never prints a secret: not in issues, warnings, help, or any printed form of the configuration', () => {
    fc.assert(
      fc.property(argv, canaryArgv, argv, env, canaryEnv, (before, secret, after, vars, secretEnv) => {
        const args = [...before, ...secret, ...after];
        const allEnv = { ...vars, ...secretEnv };
        const result = parseConfig(seedSpec, { argv: args, env: allEnv });
        const printed = [...result.warnings, ...(result.ok ? [] : result.issues)].map(formatIssue);
        if (result.ok) {
          const { config } = result;
          printed.push(
            inspect(config),
            JSON.stringify(config),
            String(config),
            JSON.stringify(configReport(config)),
          );
        }
        printed.push(help(args, allEnv));
        for (const text of printed) expect(text).not.toContain(CANARY);
      }),
      { numRuns: 500 },
    );
  });
});

/** What loadConfig writes to stdout and stderr for `--help` added to the same input, or the error it throws. */
function help(args: string[], env: Record<string, string>): string {
  let text = '';
  const sink = { write: (chunk: string) => (text += chunk) };
  const exit = (() => undefined) as unknown as (code: number) => never;
  try {
    loadConfig(seedSpec, {
      argv: [...args, '--help'],
      env,
      stdout: sink,
      stderr: sink,
      exit,
      version: '1.0.0',
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    text += error.message;
  }
  return text;
}
