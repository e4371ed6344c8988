// PierError.isInstance: branch on Pier's errors even when two copies of @pier/core are installed.
import { expect, it } from 'vitest';
import { MissingClientCapabilityError, PierError } from './errors.js';

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
