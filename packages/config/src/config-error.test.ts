// ConfigError carries the brand core's PierError.isInstance looks for, without importing core.
import { expect, it } from 'vitest';
import { ConfigError } from './index.js';

it('is recognised as a Pier error by its brand, with a stable code', () => {
  const error = new ConfigError('CONFIG_SPEC_INVALID', 'bad spec');
  expect((error as unknown as Record<symbol, unknown>)[Symbol.for('@pier/core.PierError')]).toBe(true);
  expect(error.code).toBe('CONFIG_SPEC_INVALID');
  expect(error).toBeInstanceOf(Error);
});
