// PierError.isInstance: branch on Pier's errors even when two copies of @pier/core are installed.
import { expect, it } from 'vitest';
import { describeValue, MissingClientCapabilityError, OptionIssues, PierError } from './errors.js';

it('recognises PierError and its subclasses', () => {
  expect(PierError.isInstance(new PierError('OPTIONS_INVALID', 'x'))).toBe(true);
  expect(PierError.isInstance(new MissingClientCapabilityError({ sampling: {} }, 'x'))).toBe(true);
});

it('recognises an error of another copy of the package, which instanceof does not', () => {
  // What a second copy's class looks like: its own class, the same globally registered brand.
  class OtherCopyError extends Error {
    readonly code = 'SERVER_CLOSED';
    get [Symbol.for('@pier/core.PierError')]() {
      return true;
    }
  }
  const foreign = new OtherCopyError('closed');
  expect(foreign instanceof PierError).toBe(false);
  expect(PierError.isInstance(foreign)).toBe(true);
});

it('rejects look-alikes without the brand', () => {
  for (const value of [new Error('x'), { code: 'OPTIONS_INVALID' }, null, undefined, 'PierError', 42]) {
    expect(PierError.isInstance(value)).toBe(false);
  }
});

it('a package extends it with its own codes; issues travel with the error', () => {
  class WidgetError extends PierError<'WIDGET_OPTIONS_INVALID'> {
    override readonly name = 'WidgetError';
  }
  const issues = new OptionIssues('widget()');
  issues.expect('size', 'a positive number', -1);
  issues.add('colour and pattern cannot both be set');
  expect(issues.count).toBe(2);
  const error = thrown(() =>
    issues.throwIfAny(
      (message, list) => new WidgetError('WIDGET_OPTIONS_INVALID', message, { issues: list }),
    ),
  );
  expect(error).toBeInstanceOf(WidgetError);
  expect(PierError.isInstance(error)).toBe(true);
  expect(error.code).toBe('WIDGET_OPTIONS_INVALID');
  expect(error.issues).toEqual([
    'size must be a positive number (got -1)',
    'colour and pattern cannot both be set',
  ]);
  expect(error.message).toBe(
    'widget(): 2 problems:\n  - size must be a positive number (got -1)\n  - colour and pattern cannot both be set',
  );
  const one = new OptionIssues('widget()');
  one.expect('size', 'a positive number', 'big');
  expect(thrown(() => one.throwIfAny((message) => new Error(message))).message).toBe(
    'widget(): size must be a positive number (got "big")',
  );
  expect(() => new OptionIssues('widget()').throwIfAny((message) => new Error(message))).not.toThrow();
});

it('describes a bad value without ever showing a secret', () => {
  const token = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlc2lnbmF0dXJl';
  expect(describeValue(token)).toBe(`a string of ${token.length} characters`);
  expect(describeValue('redis://:hunter2@cache:6379')).toBe('"redis://***@cache:6379"');
  expect(describeValue('https://user:pw@example.com/x')).toBe('"https://***@example.com/x"');
  expect(describeValue('short')).toBe('"short"');
  expect(describeValue(undefined)).toBe('nothing');
  expect(describeValue(null)).toBe('null');
  expect(describeValue(3)).toBe('3');
  expect(describeValue([1, 2])).toBe('an array of 2');
  expect(describeValue([])).toBe('an empty array');
  expect(describeValue({ secret: 'x' })).toBe('an object');
  expect(describeValue(() => 1)).toBe('a function');
});

function thrown(run: () => unknown): PierError<string> {
  try {
    run();
  } catch (error) {
    return error as PierError<string>;
  }
  throw new Error('did not throw');
}
