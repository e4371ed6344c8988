// ctx.auth is built once per verified token and shared by its requests: it must be frozen and exact.
import { describe, expect, it } from 'vitest';
import { AuthInfos, authDetails, REDACTED_TOKEN, unsafeRawToken } from './auth-info.js';
import type { VerifiedToken } from './verifier.js';

const verified: VerifiedToken = {
  clientId: 'app',
  subject: 'alice',
  issuer: 'https://as.example.com',
  scopes: ['notes:read'],
  expiresAt: 2_000_000_000,
  claims: { sub: 'alice', client_id: 'app', scope: 'notes:read' },
};

describe('AuthInfos', () => {
  const infos = new AuthInfos(
    new URL('https://api.example.com/mcp'),
    'https://api.example.com/.well-known/x',
  );

  it('gives the same frozen AuthInfo to every request of one token, with the token held back', () => {
    const first = infos.of('token-a', verified);
    expect(infos.of('token-a', verified)).toBe(first);
    expect(first).toMatchObject({ clientId: 'app', scopes: ['notes:read'], token: REDACTED_TOKEN });
    expect(unsafeRawToken(first)).toBe('token-a');
    expect(authDetails(first)?.principal).toBe(JSON.stringify(['https://as.example.com', 'alice', 'app']));
    // A handler cannot grant the next request of the same token more than the token says.
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => (first.scopes as string[]).push('notes:admin')).toThrow(TypeError);
    expect(Object.isFrozen(first.extra)).toBe(true);
    expect(infos.of('token-a', verified).scopes).toEqual(['notes:read']);
  });

  it('a result shared by two tokens (a custom verifier may) gives each its own AuthInfo and raw token', () => {
    const a = infos.of('token-a', verified);
    const b = infos.of('token-b', verified);
    expect(b).not.toBe(a);
    expect(unsafeRawToken(b)).toBe('token-b');
    expect(unsafeRawToken(infos.of('token-a', verified))).toBe('token-a');
  });
});

describe("a verifier's extra", () => {
  it('joins ctx.auth.extra and cannot replace what the plugin puts there', () => {
    const infos = new AuthInfos(
      new URL('https://api.example.com/mcp'),
      'https://api.example.com/.well-known/x',
    );
    const lookup = async () => 'from the verifier';
    const auth = infos.of('token-c', {
      ...verified,
      extra: { lookup, principal: 'forged', subject: 'mallory' },
    });
    const details = authDetails(auth);
    expect((auth.extra as Record<string, unknown>).lookup).toBe(lookup);
    expect(details?.subject).toBe('alice');
    expect(details?.principal).toBe(JSON.stringify(['https://as.example.com', 'alice', 'app']));
    expect(Object.isFrozen(auth.extra)).toBe(true);
  });
});
