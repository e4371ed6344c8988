import type { HttpRoute } from '@pier/core/transport';

/** What a request's method and path lead to. */
export type RouteMatch =
  | { readonly kind: 'route'; readonly route: HttpRoute }
  | { readonly kind: 'mcp' }
  | { readonly kind: 'method-not-allowed'; readonly allow: string }
  | { readonly kind: 'not-found' };

/** Matches requests to plugin routes first, then the MCP endpoint; built once per server. */
export interface Router {
  match(method: string, path: string): RouteMatch;
  /** The `Allow` value of a known path, `undefined` for an unknown one. */
  allowFor(path: string): string | undefined;
  /** Whether `path` is the MCP endpoint's or a plugin route's. */
  knows(path: string): boolean;
}

/** The MCP endpoint as the router sees it. */
export interface McpEndpointRoute {
  readonly path: string;
  readonly methods: readonly string[];
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const NOT_FOUND: RouteMatch = { kind: 'not-found' };
const MCP: RouteMatch = { kind: 'mcp' };

/**
 * Builds the route table. Paths are compared exactly as sent (no decoding, no dot-segment or
 * trailing-slash normalization), so `/mcp/../health`, `//mcp` and `/%6Dcp` match nothing. A `GET` route
 * also answers `HEAD`; `extraMethods` (such as `OPTIONS` when CORS is on) are listed in every `Allow`.
 */
export function createRouter(
  routes: readonly HttpRoute[],
  mcp: McpEndpointRoute,
  extraMethods: readonly string[] = [],
): Router {
  const byPath = new Map<string, Map<string, RouteMatch>>();
  const add = (path: string, method: string, match: RouteMatch): void => {
    let methods = byPath.get(path);
    if (methods === undefined) {
      methods = new Map();
      byPath.set(path, methods);
    }
    if (!methods.has(method)) methods.set(method, match);
  };
  for (const route of routes) {
    add(route.path, route.method.toUpperCase(), { kind: 'route', route });
  }
  for (const route of routes) {
    if (route.method.toUpperCase() === 'GET') add(route.path, 'HEAD', { kind: 'route', route });
  }
  for (const method of mcp.methods) add(mcp.path, method, MCP);

  const allow = new Map<string, RouteMatch>();
  for (const [path, methods] of byPath) {
    const names = [...new Set([...methods.keys(), ...extraMethods])].sort(byMethodOrder);
    allow.set(path, { kind: 'method-not-allowed', allow: names.join(', ') });
  }

  return {
    match(method, path) {
      const methods = byPath.get(path);
      if (methods === undefined) return NOT_FOUND;
      return methods.get(method) ?? (allow.get(path) as RouteMatch);
    },
    knows(path) {
      return byPath.has(path);
    },
    allowFor(path) {
      const match = allow.get(path);
      return match?.kind === 'method-not-allowed' ? match.allow : undefined;
    },
  };
}

/**
 * The path of a request target, without its query string: `/health?x=1` → `/health`. The absolute form
 * (`http://host/path`) gives its path; anything else (`*`, garbage, an absolute form without a host or
 * with user info) gives `undefined`.
 */
export function pathOf(target: string): string | undefined {
  if (target.charCodeAt(0) === 47 /* / */) {
    const end = firstOf(target, 0);
    return end === -1 ? target : target.slice(0, end);
  }
  const authority = authorityOf(target);
  if (authority === undefined || authority === '' || authority.includes('@')) return undefined;
  const start = target.indexOf('/', target.indexOf('://') + 3);
  if (start === -1) return '/';
  const end = firstOf(target, start);
  return end === -1 ? target.slice(start) : target.slice(start, end);
}

/**
 * The authority (`host[:port]`) of an absolute-form target (`http://127.0.0.1:3000/mcp` →
 * `127.0.0.1:3000`), `undefined` for any other form. Per RFC 9112 §3.2.2 it, not the `Host` header, names
 * the host the request is for.
 */
export function authorityOf(target: string): string | undefined {
  if (target.charCodeAt(0) === 47 /* / */) return undefined;
  const scheme = target.indexOf('://');
  if (scheme <= 0 || !/^https?$/i.test(target.slice(0, scheme))) return undefined;
  const start = scheme + 3;
  let end = target.length;
  for (const stop of ['/', '?', '#']) {
    const at = target.indexOf(stop, start);
    if (at !== -1 && at < end) end = at;
  }
  return target.slice(start, end);
}

function firstOf(target: string, from: number): number {
  const query = target.indexOf('?', from);
  const hash = target.indexOf('#', from);
  if (query === -1) return hash;
  return hash === -1 ? query : Math.min(query, hash);
}

function byMethodOrder(a: string, b: string): number {
  const rank = (method: string) => {
    const index = METHOD_ORDER.indexOf(method);
    return index === -1 ? METHOD_ORDER.length : index;
  };
  return rank(a) - rank(b) || a.localeCompare(b);
}
