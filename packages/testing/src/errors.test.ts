// TestingError is a PierError, and describes a bad value without quoting a secret.
import { PierError } from '@pier/core';
import { expect, it } from 'vitest';
import { connect, TestingError } from './index.js';

it('refuses bad options with a PierError that lists every problem and never quotes a long string', async () => {
  const token = 'sk-live-0123456789abcdefghijklmnopqrstuvwxyz0123456789';
  const error = await connect('http://127.0.0.1:1/mcp', { era: token, timeoutMs: -1 } as never).catch(
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TestingError);
  expect(PierError.isInstance(error)).toBe(true);
  expect(error).toMatchObject({ code: 'OPTIONS_INVALID' });
  expect((error as Error).message).toMatch(/^connect: 2 problems:/);
  expect((error as Error).message).not.toContain(token.slice(0, 12));
});
