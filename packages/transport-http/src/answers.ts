// How an engine answer goes out on an exchange: one JSON body with its status and headers.
import { type Answer, addHeaders, type HeaderList, headerIn } from '@pier/core/transport';
import { byteLength, type HttpExchange } from './exchange.js';

/**
 * Writes `answer` as one JSON body with its status and headers (the HTTP body of a refusal, such as an
 * OAuth error, in place of the JSON-RPC message). `extra` headers go first (a session id).
 */
export function writeAnswer(
  exchange: HttpExchange,
  answer: Answer,
  extra?: Readonly<Record<string, string>>,
): void {
  if (!exchange.writable) return;
  const { status, headers, body } = answerBody(answer, extra);
  exchange.respond(status, headers, body);
}

/** The status, headers and JSON body an answer is written with. */
export function answerBody(
  answer: Answer,
  extra?: Readonly<Record<string, string>>,
): { readonly status: number; readonly headers: string[]; readonly body: string } {
  const body = JSON.stringify(answer.httpBody !== undefined ? answer.httpBody : answer.message);
  // A list, not a record: node:http writes it as it is (no object built, copied and walked per answer).
  return { status: answer.status, headers: jsonHeaderList(answer, body, extra), body };
}

/** The headers of `answer` sent as the JSON `body`: the body's own, then `extra`, then the answer's. */
export function jsonHeaderList(
  answer: Answer,
  body: string,
  extra?: Readonly<Record<string, string>>,
): string[] {
  const length = String(byteLength(body));
  const own = answer.headers;
  if (extra === undefined && (own === undefined || !namesJson(own))) {
    return challenged(answer.status, jsonHead(length, own));
  }
  const headers = ['content-type', 'application/json', 'content-length', length];
  if (extra !== undefined) addHeaders(headers, extra);
  if (own !== undefined) addHeaders(headers, own);
  return challenged(answer.status, headers);
}

/** Whether `list` sets a header of the JSON body's own (a middleware's `content-type` replaces it). */
function namesJson(list: HeaderList): boolean {
  for (let index = 0; index < list.length; index += 2) {
    const name = list[index];
    if (name === 'content-type' || name === 'content-length') return true;
  }
  return false;
}

/** A challenge (401/403 with `WWW-Authenticate`) must not be cached by anyone in between. */
function challenged(status: number, headers: string[]): string[] {
  if (
    status >= 400 &&
    headers.length > 4 &&
    headerIn(headers, 'www-authenticate') !== undefined &&
    headerIn(headers, 'cache-control') === undefined
  ) {
    headers.push('cache-control', 'no-store');
  }
  return headers;
}

/** The JSON body's headers, then `own`: one list made whole (lists of one or two headers spelled out). */
function jsonHead(length: string, own: HeaderList | undefined): string[] {
  if (own === undefined) return ['content-type', 'application/json', 'content-length', length];
  const pairs = own as readonly string[] as [string, string, string, string];
  if (own.length === 2)
    return ['content-type', 'application/json', 'content-length', length, pairs[0], pairs[1]];
  if (own.length === 4) {
    return [
      'content-type',
      'application/json',
      'content-length',
      length,
      pairs[0],
      pairs[1],
      pairs[2],
      pairs[3],
    ];
  }
  return ['content-type', 'application/json', 'content-length', length, ...own];
}
