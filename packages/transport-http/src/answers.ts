// How an engine answer goes out on node's response, and what the engine reads of node's request: its
// headers (read on demand, never copied) and a signal that aborts when the client goes away.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Answer, HeaderReader, HttpRequestHead } from '@pier/core/transport';

/** Reads `req`'s headers by lower-case name; a repeated header reads as HTTP folds it (`a, b`). */
export function headerReader(req: IncomingMessage): HeaderReader {
  const headers = req.headers;
  return (name) => {
    const value = headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

/**
 * What an authenticator reads of `req`. Node keeps only the first of a repeated `Authorization` in
 * `req.headers`; here a repeated one reads as HTTP folds it (`a, b`), so that it can be refused.
 */
export function requestHead(req: IncomingMessage): HttpRequestHead {
  const read = headerReader(req);
  return {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    header: (name) => (name === 'authorization' ? authorization(req) : read(name)),
  };
}

function authorization(req: IncomingMessage): string | undefined {
  let folded: string | undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    // The length first: no lower-cased copy of every other header's name.
    if (name.length === 13 && name.toLowerCase() === 'authorization') {
      const value = raw[i + 1] as string;
      folded = folded === undefined ? value : `${folded}, ${value}`;
    }
  }
  return folded;
}

/** Every header of `req` as a web `Headers` (what observers read; made only when they ask). */
export function allHeaders(req: IncomingMessage): () => Headers {
  return () => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    return headers;
  };
}

/**
 * Writes `answer` as one JSON body with its status and headers (the HTTP body of a refusal, such as an
 * OAuth error, in place of the JSON-RPC message). `extra` headers go first (a session id).
 */
export function writeAnswer(
  res: ServerResponse,
  answer: Answer,
  extra?: Readonly<Record<string, string>>,
): void {
  if (res.destroyed || res.writableEnded) return;
  const { status, headers, body } = answerBody(answer, extra);
  res.writeHead(status, headers);
  res.end(body);
}

/** The status, headers and JSON body an answer is written with. */
export function answerBody(
  answer: Answer,
  extra?: Readonly<Record<string, string>>,
): { readonly status: number; readonly headers: Record<string, string>; readonly body: string } {
  const body = JSON.stringify(answer.httpBody !== undefined ? answer.httpBody : answer.message);
  const headers: Record<string, string> = {
    ...extra,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  };
  if (answer.headers !== undefined) Object.assign(headers, answer.headers);
  // A challenge (401/403 with WWW-Authenticate) must not be cached by anyone in between.
  if (headers['www-authenticate'] !== undefined) headers['cache-control'] ??= 'no-store';
  return { status: answer.status, headers, body };
}

/** A signal that aborts if `res` closes before it finished (the client went away). */
export function abortedOnDisconnect(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (res.destroyed && !res.writableFinished) controller.abort(new Error('the client went away'));
  else {
    res.once('close', () => {
      if (!res.writableFinished) controller.abort(new Error('the client went away'));
    });
  }
  return controller.signal;
}
