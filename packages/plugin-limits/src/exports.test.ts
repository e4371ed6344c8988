// The public API is what the entry point exports, nothing more: a new export is a decision, made here.
import { expect, it } from 'vitest';
import * as entry from './index.js';

it('@pier/plugin-limits exports exactly its allow-list', () => {
  expect(Object.keys(entry).sort()).toEqual([
    'LIMIT_EXCEEDED',
    'LIMIT_META_KEY',
    'LimitsPluginError',
    'limitsPlugin',
  ]);
});
