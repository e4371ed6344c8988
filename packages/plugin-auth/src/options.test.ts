// Bad options fail when authPlugin() (or a verifier factory) is called, naming every problem, never a secret.
import { describe, expect, it } from 'vitest';
import { AuthPluginError } from './errors.js';
import { introspection } from './introspection.js';
import { jwt } from './jwt.js';
import { authPlugin } from './plugin.js';
import { ScopePolicy } from './scopes.js';
import { staticTokens } from './simple-verifiers.js';

function failure(fn: () => unknown): AuthPluginError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AuthPluginError);
    expect(error).toMatchObject({ code: 'AUTH_OPTIONS_INVALID' });
    return error as AuthPluginError;
  }
  throw new Error('did not throw');
}

const AS = ['https://as.example.com'];

describe('authPlugin options', () => {
  it.each([
    ['http://api.example.com/mcp', /must use https/],
    ['https://api.example.com/mcp/', /must not end with a slash/],
    ['https://api.example.com/mcp#x', /fragment/],
    ['https://api.example.com/mcp?tenant=1', /query string/],
    ['/mcp', /absolute URL/],
  ])('refuses the resource %s', (resource, message) => {
    expect(failure(() => authPlugin({ resource, authorizationServers: AS })).message).toMatch(message);
  });

  it('accepts http on loopback, and uppercase scheme/host (canonicalized)', () => {
    expect(authPlugin({ resource: 'http://127.0.0.1:3000/mcp', authorizationServers: AS }).metadataUrl).toBe(
      'http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp',
    );
    expect(
      authPlugin({ resource: 'HTTPS://API.Example.com/mcp', authorizationServers: AS }).metadataUrl,
    ).toBe('https://api.example.com/.well-known/oauth-protected-resource/mcp');
  });

  it('lists every problem at once', () => {
    const error = failure(() =>
      authPlugin({
        resource: 'ftp://x',
        authorizationServers: [],
        scopesSupported: ['notes:read', 'offline_access'],
        requiredScopes: ['has space'],
        implies: { 'a b': ['c'] },
        maxTokenLength: 3,
      }),
    );
    expect(error.issues).toHaveLength(6);
    expect(error.message).toMatch(/offline_access/);
  });

  it('never echoes a secret of a verifier', () => {
    const secret = 'super-secret-value-that-must-not-leak';
    const error = failure(() => introspection({ clientId: '', clientSecret: secret, cacheTtlSeconds: 600 }));
    expect(error.issues).toHaveLength(2);
    expect(error.message).not.toContain(secret);
    const tokens = failure(() => staticTokens([{ token: 'short', clientId: 'dev' }]));
    expect(tokens.message).not.toContain('short');
  });

  it('bounds jwt() settings', () => {
    expect(failure(() => jwt({ clockToleranceSeconds: 300 })).message).toMatch(/0 to 60/);
    expect(failure(() => jwt({ algorithms: ['HS256'] })).message).toMatch(/algorithms/);
    expect(failure(() => jwt({ cacheTokens: -1 })).message).toMatch(/cacheTokens must be an integer ≥ 0/);
    expect(() =>
      authPlugin({
        resource: 'https://a.example.com/mcp',
        authorizationServers: [...AS, 'https://b.example.com'],
        verifier: jwt({ jwksUri: 'https://as.example.com/jwks' }),
      }),
    ).toThrow(/jwksUri can be given only with a single authorization server/);
    expect(failure(() => jwt({ keys: 'not a function' as never })).message).toMatch(
      /keys must be a function/,
    );
    expect(
      failure(() => jwt({ keys: async () => ({}) as never, jwksUri: 'https://as.example.com/k' })).message,
    ).toMatch(/give keys or jwksUri, not both/);
  });
});

describe('the scope hierarchy', () => {
  const policy = new ScopePolicy({ 'notes:admin': ['notes:write'], 'notes:write': ['notes:read'] }, [
    'notes:read',
    'notes:write',
    'notes:admin',
  ]);

  it('is transitive', () => {
    expect(policy.missing(['notes:read'], ['notes:admin'])).toEqual([]);
    expect(policy.missing(['notes:admin'], ['notes:write'])).toEqual(['notes:admin']);
  });

  it('challenges with the required scopes first, then the granted ones this resource knows', () => {
    expect(policy.challengeScopes(['notes:write'], ['notes:read', 'openid', 'offline_access'])).toEqual([
      'notes:write',
      'notes:read',
    ]);
  });
});
