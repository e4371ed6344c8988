// The opt-in `visibility: 'hide'` policy: the four lists leave out what the caller's scopes do not allow,
// and such a list (it depends on who asks) is marked `cacheScope: "private"` on 2026-07-28. A middleware on
// the engine's list methods: each entry is judged by the scope check its call, read or get goes through.
import type { HttpAuthenticator, Middleware } from '@pier/core';

/** What each list method's result keeps its entries under. */
const LISTS: Readonly<Record<string, string>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};

/** The list methods the middleware runs on. */
export const LIST_METHODS = Object.keys(LISTS);

/**
 * Leaves out of a list each entry whose declared scopes would challenge the caller (the authenticator's
 * `scopeChallenge`, hierarchy included): what a list shows is exactly what the caller may use.
 */
export function hideUnusable(authenticator: Required<Pick<HttpAuthenticator, 'scopeChallenge'>>): Middleware {
  return async (request, next) => {
    const result = await next();
    const auth = request.auth;
    const key = LISTS[request.method];
    if (auth === undefined || key === undefined) return result;
    const items = Array.isArray(result[key]) ? (result[key] as Record<string, unknown>[]) : [];
    const kept = items.filter((item) => {
      const scopes = request.declarationOf(item)?.declaration.scopes;
      return (
        scopes === undefined ||
        scopes.length === 0 ||
        authenticator.scopeChallenge(scopes, auth) === undefined
      );
    });
    // A list that depends on who asks must never be shared by caches (2026-07-28 `cacheScope`); the 2025
    // revisions have no such field.
    return Object.assign(
      {},
      result,
      { [key]: kept },
      request.era === 'modern' ? { cacheScope: 'private' } : undefined,
    );
  };
}
