import { describe, expect, it } from 'vitest';
import { maskSecret } from './index.js';

describe('maskSecret', () => {
  it('keeps a 4-character prefix of a value of 16 characters or more', () => {
    expect(maskSecret('sk-live-0123456789abcdef')).toBe('sk-l********');
    expect(maskSecret('0123456789abcdef')).toBe('0123********');
  });

  it('gives short values a fixed mask that does not reveal their length', () => {
    for (const value of ['', 'a', 'hunter2', '0123456789abcde']) expect(maskSecret(value)).toBe('********');
  });

  it('does not split a character made of two code units', () => {
    expect(maskSecret('🔑🔑🔑🔑🔑🔑🔑🔑🔑')).toBe('🔑🔑🔑🔑********');
  });
});
