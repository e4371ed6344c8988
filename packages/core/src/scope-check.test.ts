// The one scope decision: what a caller may see of a declaration, and what a completion needs.
import type { AuthInfo } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import type { HttpAuthenticator } from './contract.js';
import { completionScopes, maySee, scopeChallengeFor } from './scope-check.js';

const caller = (scopes: string[]): AuthInfo => ({ token: 't', clientId: 'c', scopes });

describe('scopeChallengeFor', () => {
  it('lets through what needs no scope, and an unauthenticated request (no one to challenge)', () => {
    expect(scopeChallengeFor(undefined, undefined, caller([]))).toBeUndefined();
    expect(scopeChallengeFor(undefined, [], caller([]))).toBeUndefined();
    expect(scopeChallengeFor(undefined, ['notes:read'], undefined)).toBeUndefined();
  });

  it('without an authenticator decision, needs every scope exactly and challenges with them', () => {
    expect(scopeChallengeFor(undefined, ['a', 'b'], caller(['a', 'b', 'c']))).toBeUndefined();
    expect(scopeChallengeFor(undefined, ['a', 'b'], caller(['a']))).toEqual({ scopes: ['a', 'b'] });
    expect(maySee(undefined, ['a'], caller([]))).toBe(false);
  });

  it("the authenticator's decision wins (a scope hierarchy)", () => {
    const authenticator: HttpAuthenticator = {
      authenticate: () => ({ refusal: { status: 401 } }),
      scopeChallenge(required, authInfo) {
        return authInfo.scopes.includes('admin') ? undefined : { scopes: [...required, 'admin'] as [string] };
      },
    };
    expect(maySee(authenticator, ['notes:read'], caller(['admin']))).toBe(true);
    expect(scopeChallengeFor(authenticator, ['notes:read'], caller(['notes:read']))).toEqual({
      scopes: ['notes:read', 'admin'],
    });
  });
});

describe('completionScopes', () => {
  const declarations = {
    resources: [
      { declaration: { uriTemplate: 'notes://{id}', scopes: ['notes:read'] } },
      { declaration: { uri: 'notes://index', scopes: ['notes:read'] } },
      { declaration: { uriTemplate: 'open://{id}' } },
    ],
    prompts: [{ declaration: { name: 'summarize', scopes: ['notes:read'] } }],
  };

  it('a resource template completion needs the template’s scopes; a prompt’s, the prompt’s', () => {
    expect(completionScopes({ ref: { type: 'ref/resource', uri: 'notes://{id}' } }, declarations)).toEqual([
      'notes:read',
    ]);
    expect(completionScopes({ ref: { type: 'ref/prompt', name: 'summarize' } }, declarations)).toEqual([
      'notes:read',
    ]);
  });

  it('anything else needs none (it has no data to show, or the SDK refuses it)', () => {
    for (const params of [
      { ref: { type: 'ref/resource', uri: 'open://{id}' } },
      { ref: { type: 'ref/resource', uri: 'notes://index' } },
      { ref: { type: 'ref/prompt', name: 'unknown' } },
      { ref: { type: 'ref/other' } },
      undefined,
      'garbage',
    ]) {
      expect(completionScopes(params, declarations)).toBeUndefined();
    }
  });
});
