// RFC 6750 on the wire: reading the credentials of a request, and the answers that refuse one.
import type { HttpRefusal, HttpRequestHead } from '@pier/core';

/** What the request presents. */
export type Presented =
  | { readonly kind: 'none' }
  | { readonly kind: 'token'; readonly token: string }
  /** 400 `invalid_request`: the token is never looked at. */
  | { readonly kind: 'bad-request'; readonly description: string }
  /** 401 `invalid_token` without verification: not a bearer token at all. */
  | { readonly kind: 'unusable'; readonly description: string };

const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * Reads the bearer token from the `Authorization` header, the only method advertised. A token in the query
 * string (alone or beside the header) and a repeated `Authorization` header are 400 (RFC 6750 §2: one
 * method only). A repeated header reads as its values joined with a comma, a character no bearer token
 * holds, so a comma is how it shows.
 */
export function presented(request: HttpRequestHead, maxTokenLength: number): Presented {
  const header = request.header('authorization');
  if (header?.includes(',')) {
    return { kind: 'bad-request', description: 'More than one Authorization header' };
  }
  if (queryHasToken(request.url)) {
    return {
      kind: 'bad-request',
      description: 'Access tokens are accepted in the Authorization header only',
    };
  }
  if (header === undefined) return { kind: 'none' };
  if (header.length > maxTokenLength + 7)
    return { kind: 'unusable', description: 'The access token is too long' };
  const token = BEARER.exec(header)?.[1];
  if (token === undefined) {
    return { kind: 'unusable', description: "Expected the Authorization header 'Bearer <token>'" };
  }
  return { kind: 'token', token };
}

/**
 * The text after `Bearer ` of a request that passes {@link presented}'s one-method checks, its syntax not
 * checked yet: what a verified-token cache is asked first, since a token it knows was checked when it was
 * verified. `undefined` when the request is not in that everyday form; {@link presented} decides then.
 */
export function everydayToken(request: HttpRequestHead, maxTokenLength: number): string | undefined {
  const header = request.header('authorization');
  if (header === undefined || header.length > maxTokenLength + 7 || !header.startsWith('Bearer ')) {
    return undefined;
  }
  if (header.includes(',') || queryHasToken(request.url)) return undefined;
  return header.slice(7);
}

function queryHasToken(url: string): boolean {
  const start = url.indexOf('?');
  if (start === -1) return false;
  return new URLSearchParams(url.slice(start + 1)).has('access_token');
}

/** A quoted-string value that cannot break the header: printable ASCII only, `"` and `\` escaped. */
export function quoted(value: string): string {
  return `"${value.replace(/[^\x20-\x7E]/g, '').replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** `Bearer k="v", …` from the parameters that are set. */
export function bearerChallenge(params: Readonly<Record<string, string | undefined>>): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
    .map(([key, value]) => `${key}=${quoted(value)}`);
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`;
}

/** An OAuth error answer (RFC 6750 §3, the JSON body of RFC 6749 §5.2); never cached. */
export function refusal(
  status: number,
  error: string | undefined,
  description: string | undefined,
  challenge: string | undefined,
  extraHeaders: Readonly<Record<string, string>> = {},
): HttpRefusal {
  return {
    status,
    headers: {
      'cache-control': 'no-store',
      ...(challenge !== undefined && { 'www-authenticate': challenge }),
      ...extraHeaders,
    },
    ...(error !== undefined && {
      body: { error, ...(description !== undefined && { error_description: stripped(description) }) },
    }),
  };
}

function stripped(value: string): string {
  return value.replace(/[^\x20-\x7E]/g, '');
}
