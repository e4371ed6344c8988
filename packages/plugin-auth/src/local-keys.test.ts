// jwt({ keys }): the keys of an authorization server running in the same process (such as
// @pier/oauth-proxy), with no key set fetched over HTTP; every claim check of jwt() still applies.
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwt } from './jwt.js';
import { calls, type Rig, startPier } from './test-as.js';
import { ask, call } from './test-http.js';

const ISSUER = 'https://as.in-process.test';
let rig: Rig;
let key: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let getterCalls = 0;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  key = pair.privateKey;
  const local = createLocalJWKSet({
    keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }],
  });
  rig = await startPier(() => ({
    authorizationServers: [ISSUER],
    verifier: jwt({
      keys: (header, token) => {
        getterCalls++;
        return local(header, token);
      },
    }),
  }));
});
afterAll(() => rig.server.close());

const token = (claims: Record<string, unknown>, kid = 'k1') => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: ISSUER,
    aud: rig.resource,
    sub: 'alice',
    client_id: 'app',
    iat: now,
    exp: now + 60,
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
    .sign(key);
};

describe('jwt({ keys })', () => {
  it('verifies tokens with the keys given, fetching nothing', async () => {
    calls.length = 0;
    const answer = await ask(rig.url, {
      ...call('whoami'),
      headers: { ...call('whoami').headers, authorization: `Bearer ${await token({})}` },
    });
    expect(answer.status).toBe(200);
    expect(calls).toEqual(['whoami']);
    expect(getterCalls).toBeGreaterThan(0);
  });

  it('still refuses a foreign audience and an unknown key, before any handler', async () => {
    calls.length = 0;
    for (const bad of [await token({ aud: 'https://other.example.com/mcp' }), await token({}, 'unknown')]) {
      const answer = await ask(rig.url, {
        ...call('whoami'),
        headers: { ...call('whoami').headers, authorization: `Bearer ${bad}` },
      });
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toContain('error="invalid_token"');
    }
    expect(calls).toEqual([]);
  });
});
