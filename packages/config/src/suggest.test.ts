import { describe, expect, it } from 'vitest';
import { suggestFlag } from './suggest.js';

const known = ['--api-key', '--base-url', '--debug', '--no-debug', '--max-retries', '--timeout', '--help'];

describe('suggestFlag', () => {
  it.each([
    ['--max-retrys', '--max-retries'],
    ['--maxRetries', '--max-retries'],
    ['--max_retries', '--max-retries'],
    ['--API-KEY', '--api-key'],
    ['--apikey', '--api-key'],
    ['--timeuot', '--timeout'],
    ['--debgu', '--debug'],
    ['--no-debgu', '--no-debug'],
  ])('suggests %s → %s', (typo, flag) => {
    expect(suggestFlag(typo, known)).toBe(flag);
  });

  it('suggests nothing when no flag is close', () => {
    expect(suggestFlag('--port', known)).toBeUndefined();
    expect(suggestFlag('--verbose', known)).toBeUndefined();
  });
});
