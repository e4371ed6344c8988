// How the MCP endpoint checks the proxy's own tokens: @pier/plugin-auth's jwt() verifier (signature, typ
// at+jwt, exact issuer, the resource as the only audience, expiry…) with the proxy's keys held in this
// process, then the grant: a revoked login is refused at once, on every replica. The verified caller gets
// the accessor of the provider's token in `ctx.auth.extra`.
import { jwt, TokenRejectedError, type TokenVerifier, type VerifiedToken } from '@pier/plugin-auth';
import type { Grants } from './grants.js';
import { SIGNING_ALG, type SigningKeys } from './keys.js';
import { UPSTREAM_TOKEN_KEY } from './upstream-token.js';

export function proxyVerifier(keys: SigningKeys, grants: Grants): TokenVerifier {
  const inner = jwt({ keys: keys.getKey, algorithms: [SIGNING_ALG], strictAudience: true });
  return {
    kind: 'oauth-proxy',
    create(settings) {
      const verifier = inner.create(settings);
      // One result per verified token, so that plugin-auth builds ctx.auth once per token, not per request.
      const withAccessor = new WeakMap<VerifiedToken, VerifiedToken>();
      return {
        async verify(token) {
          const verified = await verifier.verify(token);
          const grantId = verified.claims.sid;
          if (typeof grantId !== 'string' || verified.subject === undefined) {
            throw new TokenRejectedError('claims', 'The access token names no login');
          }
          let alive: boolean;
          try {
            alive = await grants.alive(grantId);
          } catch (error) {
            throw new TokenRejectedError('unavailable', 'The login could not be checked', { cause: error });
          }
          if (!alive) throw new TokenRejectedError('inactive', 'The access token was revoked');
          let result = withAccessor.get(verified);
          if (result === undefined) {
            result = {
              ...verified,
              extra: { [UPSTREAM_TOKEN_KEY]: () => grants.upstreamToken(grantId) },
            };
            withAccessor.set(verified, result);
          }
          return result;
        },
        ...(verifier.probe !== undefined && { probe: verifier.probe.bind(verifier) }),
      };
    },
  };
}
