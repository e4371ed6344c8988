// The canonical resource URL and issuer URLs: checked once, compared the way RFC 8707 and the MCP spec say.

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The canonical form of an absolute http(s) URL: lowercase scheme and host (URL does that), no trailing
 * slash, no fragment. `undefined` when `value` is not such a URL.
 */
export function canonicalUrl(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}${path}${url.search}`;
}

/** Why `value` cannot be the canonical resource URL, or `undefined` when it can. */
export function resourceProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || !URL.canParse(value))
    return 'must be an absolute URL such as https://api.example.com/mcp';
  const url = new URL(value);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    return 'must use https (http is accepted for 127.0.0.1, localhost and [::1] only)';
  }
  if (url.hash !== '' || value.includes('#')) return 'must not have a fragment';
  if (url.search !== '') return 'must not have a query string';
  if (url.username !== '' || url.password !== '') return 'must not carry user information';
  if (url.pathname.length > 1 && url.pathname.endsWith('/'))
    return "must not end with a slash (the MCP spec's canonical form)";
  return undefined;
}

/** Why `value` cannot be an issuer URL (RFC 8414 §2), or `undefined` when it can. */
export function issuerProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || !URL.canParse(value))
    return 'must be an absolute URL such as https://as.example.com';
  const url = new URL(value);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    return 'must use https (http is accepted for 127.0.0.1, localhost and [::1] only)';
  }
  if (url.hash !== '' || url.search !== '') return 'must have no query string or fragment';
  return undefined;
}

/** `https://h/mcp` → `https://h/.well-known/oauth-protected-resource/mcp` (RFC 9728 §3.1). */
export function metadataUrlOf(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}

/** Whether an `aud` value names `resource` (canonical forms compared: case of scheme/host, one trailing slash). */
export function sameResource(audience: unknown, resource: string): boolean {
  return typeof audience === 'string' && canonicalUrl(audience) === resource;
}
