// The scope hierarchy (2026-07-28: a MUST) and the scopes a challenge asks for.
import { describeValue, type OptionIssues } from '@pier/core';

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
/** Never advertised nor asked for by a resource server (2026-07-28), nor identity scopes of OpenID Connect. */
const NOT_OURS = new Set(['offline_access', 'openid', 'profile', 'email', 'address', 'phone']);

/** Scopes checked and completed with a hierarchy: `implies: { 'notes:admin': ['notes:write', 'notes:read'] }`. */
export class ScopePolicy {
  /** Every scope each scope implies, transitively (itself included). */
  readonly #closure = new Map<string, ReadonlySet<string>>();
  readonly #relevant: ReadonlySet<string> | undefined;

  constructor(
    implies: Readonly<Record<string, readonly string[]>>,
    supported: readonly string[] | undefined,
  ) {
    for (const scope of Object.keys(implies)) {
      const seen = new Set<string>([scope]);
      const queue = [...(implies[scope] ?? [])];
      while (queue.length > 0) {
        const next = queue.pop() as string;
        if (seen.has(next)) continue;
        seen.add(next);
        queue.push(...(implies[next] ?? []));
      }
      this.#closure.set(scope, seen);
    }
    this.#relevant = supported === undefined ? undefined : new Set(supported);
  }

  /** The granted scopes with everything they imply. */
  effective(granted: readonly string[]): Set<string> {
    const all = new Set<string>();
    for (const scope of granted) {
      for (const implied of this.#closure.get(scope) ?? [scope]) all.add(implied);
    }
    return all;
  }

  /** The required scopes `granted` lacks (after the hierarchy). */
  missing(required: readonly string[], granted: readonly string[]): string[] {
    const effective = this.effective(granted);
    return required.filter((scope) => !effective.has(scope));
  }

  /**
   * What a 403 asks for: every scope the operation needs, then the granted scopes still relevant to this
   * resource (2025-11-25 clients replace their scopes with the challenge's; 2026-07-28 clients union them).
   */
  challengeScopes(required: readonly string[], granted: readonly string[]): [string, ...string[]] {
    const kept = granted.filter((scope) =>
      this.#relevant === undefined ? !NOT_OURS.has(scope) : this.#relevant.has(scope),
    );
    return [...new Set([...required, ...kept])] as [string, ...string[]];
  }
}

/** Checks a list of scopes; `offline_access` is refused where the resource advertises or asks. */
export function checkScopes(
  issues: OptionIssues,
  name: string,
  value: unknown,
  allowEmpty = true,
): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    !value.every((scope) => typeof scope === 'string' && SCOPE_TOKEN.test(scope))
  ) {
    issues.add(
      `${name} must be an array of OAuth scopes such as ["notes:read"] (got ${describeValue(value)})`,
    );
    return undefined;
  }
  if (!allowEmpty && value.length === 0) issues.add(`${name} must not be empty`);
  if (value.includes('offline_access'))
    issues.add(`${name} must not include offline_access (a client's business, not the resource's)`);
  return Object.freeze([...new Set(value as string[])]);
}

/** Checks `implies`: an object of scope → scopes. */
export function checkImplies(
  issues: OptionIssues,
  value: unknown,
): Readonly<Record<string, readonly string[]>> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.add(
      `implies must be an object such as { "notes:admin": ["notes:write"] } (got ${describeValue(value)})`,
    );
    return {};
  }
  const result: Record<string, readonly string[]> = {};
  for (const [scope, implied] of Object.entries(value)) {
    if (!SCOPE_TOKEN.test(scope)) issues.add(`implies: ${JSON.stringify(scope)} is not an OAuth scope`);
    result[scope] = checkScopes(issues, `implies[${JSON.stringify(scope)}]`, implied) ?? [];
  }
  return result;
}
