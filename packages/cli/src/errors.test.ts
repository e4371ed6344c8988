// CliError is a Pier error to code that branches on PierError.isInstance, without the CLI importing core.
import { PierError } from '@pier/core';
import { expect, it } from 'vitest';
import { UsageIssues } from './errors.js';
import { CliError } from './index.js';

it('CliError carries the PierError brand, a stable code and the exit code that follows from it', () => {
  const usage = new CliError('USAGE', 'install: which client?');
  const failed = new CliError('CONNECT_FAILED', 'could not connect', { cause: new Error('refused') });
  expect(PierError.isInstance(usage)).toBe(true);
  expect(PierError.isInstance(failed)).toBe(true);
  expect([usage.code, usage.exitCode, failed.code, failed.exitCode]).toEqual([
    'USAGE',
    2,
    'CONNECT_FAILED',
    1,
  ]);
  // The negative control: an error without the brand is not one.
  expect(PierError.isInstance(Object.assign(new Error('x'), { code: 'USAGE' }))).toBe(false);
});

it('a usage error lists every problem, in its message and as issues', () => {
  const issues = new UsageIssues('install');
  issues.throwIfAny(); // nothing recorded: nothing thrown
  issues.add('which client?');
  issues.add('unknown option --nmae (did you mean --name?)', { help: true });
  let thrown: unknown;
  try {
    issues.throwIfAny();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(CliError);
  expect(thrown).toMatchObject({
    code: 'USAGE',
    exitCode: 2,
    issues: ['which client?', 'unknown option --nmae (did you mean --name?)'],
    message:
      'install: 2 problems:\n  - which client?\n  - unknown option --nmae (did you mean --name?)\nsee pier install --help',
  });
});
