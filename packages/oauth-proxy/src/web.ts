// The proxy's HTTP vocabulary, web-standard only (Request, Response, URLSearchParams): every endpoint is a
// `(request: Request) => Promise<Response>`, a plugin route on every runtime (see served.ts).

/** An endpoint of the proxy. */
export type WebHandler = (request: Request) => Promise<Response>;

/** A route of the proxy: an exact path and method, and its web-standard handler. */
export interface WebRoute {
  readonly method: 'GET' | 'POST' | 'OPTIONS';
  readonly path: string;
  readonly handler: WebHandler;
}

/** Answers that carry tokens, codes or per-user pages: never stored by any cache (RFC 6749 §5.1). */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** A JSON answer, never cached. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...NO_STORE, ...headers },
  });
}

/**
 * An OAuth error as JSON (RFC 6749 §5.2): `{ error, error_description }`. The description comes from fixed
 * texts of this package: never a token, code, secret or anything else the request carried.
 */
export function oauthError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): Response {
  return json(status, { error, error_description: description }, headers);
}

/** Headers of every page and redirect the browser sees: no caching, framing, referrer or sniffing. */
export function pageHeaders(nonce?: string): Record<string, string> {
  return {
    ...NO_STORE,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    // The consent page's URL carries the authorization request: it must not leak to the provider or the
    // client. `same-origin`, not `no-referrer`: under `no-referrer` browsers send `Origin: null` with the
    // consent form's POST, which the proxy's origin check refuses.
    'referrer-policy': 'same-origin',
    'content-security-policy': `default-src 'none'; style-src ${nonce === undefined ? "'none'" : `'nonce-${nonce}'`}; frame-ancestors 'none'; base-uri 'none'`,
  };
}

/** A redirect of the browser (303 after a POST, so that the next request is a GET). */
export function redirect(
  location: string,
  status: 302 | 303 = 302,
  headers: Record<string, string> = {},
): Response {
  return new Response(null, { status, headers: { location, ...pageHeaders(), ...headers } });
}

/** An HTML page. */
export function page(
  status: number,
  html: string,
  nonce: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(html, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', ...pageHeaders(nonce), ...headers },
  });
}

/** Whether the client would rather read HTML (a browser) than JSON. */
export function wantsHtml(request: Request): boolean {
  return (request.headers.get('accept') ?? '').includes('text/html');
}

/** CORS for the endpoints clients call from a browser app (metadata, token, registration, revocation). */
export const OPEN_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, MCP-Protocol-Version',
  'access-control-max-age': '86400',
};

/** The answer to a CORS preflight of an open endpoint. */
export function preflight(): Promise<Response> {
  return Promise.resolve(new Response(null, { status: 204, headers: OPEN_CORS }));
}

/**
 * Parameters of a query or form: each name once (RFC 6749 §3.1: "MUST NOT be included more than once"),
 * or the name that repeats. `multi` names may repeat (the consent form's scope checkboxes).
 */
export function singleParams(
  params: URLSearchParams,
  multi: readonly string[] = [],
): {
  readonly values: Map<string, string>;
  readonly repeated?: string;
  readonly lists: Map<string, string[]>;
} {
  const values = new Map<string, string>();
  const lists = new Map<string, string[]>();
  for (const [name, value] of params) {
    if (multi.includes(name)) {
      lists.set(name, [...(lists.get(name) ?? []), value]);
      continue;
    }
    if (values.has(name)) return { values, repeated: name, lists };
    values.set(name, value);
  }
  return { values, lists };
}

/** The body of a form POST, or `undefined` when the request is not `application/x-www-form-urlencoded`. */
export async function formOf(request: Request): Promise<URLSearchParams | undefined> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  return new URLSearchParams(await request.text());
}

/** The value of cookie `name`, if the request carries it. */
export function cookieOf(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
