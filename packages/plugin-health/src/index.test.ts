import { expect, it } from 'vitest';
import { placeholder } from './index.js';

it('placeholder', () => {
  expect(placeholder).toBe(1);
});
