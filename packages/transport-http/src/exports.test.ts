// The public API is what the entry points export, nothing more: a new export is a decision, made here.
import { expect, it } from 'vitest';
import * as fetchEntry from './fetch.js';
import * as entry0 from './index.js';

it('@pier/transport-http exports exactly its allow-list', () => {
  expect(Object.keys(entry0).sort()).toEqual([
    'HttpTransportError',
    'createNodeHandler',
    'httpTransport',
    'startHttpTransport',
  ]);
});

it('@pier/transport-http/fetch exports exactly its allow-list', () => {
  expect(Object.keys(fetchEntry).sort()).toEqual(['HttpTransportError', 'createFetchHandler']);
});
