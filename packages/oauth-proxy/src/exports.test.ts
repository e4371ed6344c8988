// The public API is what the entry point exports, nothing more: a new export is a decision, made here.
import { PierError } from '@pier/core';
import { expect, it } from 'vitest';
import * as entry from './index.js';

it('@pier/oauth-proxy exports exactly its allow-list', () => {
  expect(Object.keys(entry).sort()).toEqual([
    'OAuthProxyError',
    'UpstreamToken',
    'github',
    'google',
    'oauthProxy',
    'oidc',
    'upstreamToken',
  ]);
});

it('its error is a PierError with its own stable code', () => {
  const error = new entry.OAuthProxyError('UPSTREAM_FAILED', 'x');
  expect(error).toBeInstanceOf(PierError);
  expect(PierError.isInstance(error)).toBe(true);
  expect(error.code).toBe('UPSTREAM_FAILED');
  expect(error.name).toBe('OAuthProxyError');
});
