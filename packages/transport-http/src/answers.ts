// How an engine answer goes out on an exchange: one JSON body with its status and headers.
import type { Answer } from '@pier/core/transport';
import type { HttpExchange } from './exchange.js';
import { jsonHeaders } from './json-errors.js';

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
): { readonly status: number; readonly headers: Record<string, string>; readonly body: string } {
  const body = JSON.stringify(answer.httpBody !== undefined ? answer.httpBody : answer.message);
  const headers = jsonHeaders(body, extra);
  if (answer.headers !== undefined) Object.assign(headers, answer.headers);
  // A challenge (401/403 with WWW-Authenticate) must not be cached by anyone in between.
  if (headers['www-authenticate'] !== undefined) headers['cache-control'] ??= 'no-store';
  return { status: answer.status, headers, body };
}
