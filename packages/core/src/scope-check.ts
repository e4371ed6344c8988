// The one scope decision of the server: may this caller see the data behind a declaration (a tool's call,
// a resource's read, list and completions, a prompt's get and completions)? Every place that serves such
// data asks here, so a list or a completion can never show what the read behind it would refuse. Internal:
// the SDK path (sdk-servers.ts, declarations.ts) and the request engine both call it; not a public export.
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { HttpAuthenticator, ScopeChallenge } from './contract.js';

/**
 * The challenge (403 `insufficient_scope`) for a caller of a declaration that needs `required` scopes, or
 * `undefined` when the caller may go on. Nothing is checked without scopes, or without an authenticated
 * caller (stdio, HTTP without an authenticator: there is no one to challenge). The authenticator decides
 * when it can (plugin-auth applies its scope hierarchy); otherwise every scope must be granted exactly.
 */
export function scopeChallengeFor(
  authenticator: HttpAuthenticator | undefined,
  required: readonly string[] | undefined,
  authInfo: AuthInfo | undefined,
): ScopeChallenge | undefined {
  if (required === undefined || required.length === 0 || authInfo === undefined) return undefined;
  const decide = authenticator?.scopeChallenge;
  if (decide !== undefined) return decide.call(authenticator, required, authInfo);
  const granted = new Set(authInfo.scopes);
  return required.every((scope) => granted.has(scope))
    ? undefined
    : { scopes: required as readonly [string, ...string[]] };
}

/** Whether the caller may see the data of a declaration that needs `required` scopes. */
export function maySee(
  authenticator: HttpAuthenticator | undefined,
  required: readonly string[] | undefined,
  authInfo: AuthInfo | undefined,
): boolean {
  return scopeChallengeFor(authenticator, required, authInfo) === undefined;
}

/** What {@link completionScopes} reads of the server's declarations. */
export interface ScopedDeclarations {
  readonly resources: readonly {
    readonly declaration: { readonly uriTemplate?: string; readonly scopes?: readonly string[] };
  }[];
  readonly prompts: readonly {
    readonly declaration: { readonly name: string; readonly scopes?: readonly string[] };
  }[];
}

/**
 * The scopes a `completion/complete` request needs: a completion shows the data of what it completes, so
 * it needs the scopes of the resource template (`ref/resource`, named by its URI template) or the prompt
 * (`ref/prompt`) — the same ones its read or get needs. `undefined` when it names nothing scoped.
 */
export function completionScopes(
  params: unknown,
  declarations: ScopedDeclarations,
): readonly string[] | undefined {
  const ref = (params as { ref?: { type?: unknown; uri?: unknown; name?: unknown } } | undefined)?.ref;
  if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
    return declarations.resources.find(({ declaration }) => declaration.uriTemplate === ref.uri)?.declaration
      .scopes;
  }
  if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
    return declarations.prompts.find(({ declaration }) => declaration.name === ref.name)?.declaration.scopes;
  }
  return undefined;
}
