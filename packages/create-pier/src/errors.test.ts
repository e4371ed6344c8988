// CreatePierError carries the brand core's PierError.isInstance looks for, without importing core.
import { expect, it } from 'vitest';
import { CreatePierError } from './index.js';

it('is recognised as a Pier error by its brand, with a stable code', () => {
  const error = new CreatePierError('DIRECTORY_NOT_EMPTY', 'the directory has files');
  expect((error as unknown as Record<symbol, unknown>)[Symbol.for('@pier/core.PierError')]).toBe(true);
  expect(error.code).toBe('DIRECTORY_NOT_EMPTY');
  expect(error).toBeInstanceOf(Error);
});
