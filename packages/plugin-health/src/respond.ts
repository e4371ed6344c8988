// The HTTP side: response bodies of the three endpoints and how they are written.
import type { HttpRequestHead, PlainHttpAnswer, ServerInfo } from '@pier/core';
import type { HealthStatus } from './definitions.js';
import type { HealthCheckOutcome, HealthEvaluation } from './evaluate.js';

/** Why `/health` and `/health/ready` answer 503 without running a check. */
export type NotServingReason = 'starting' | 'shutting_down';

/** One check in the `/health` body. */
export interface HealthBodyCheck {
  readonly status: HealthStatus;
  readonly critical?: boolean;
  readonly durationMs?: number;
  readonly error?: string;
  readonly timedOut?: true;
  readonly message?: string;
  readonly details?: unknown;
}

/** The `/health` body. Without `exposeDetails`, only `status` (and `reason`) at both levels. */
export interface HealthBody {
  readonly status: HealthStatus;
  readonly reason?: NotServingReason;
  readonly timestamp?: string;
  readonly uptime?: number;
  readonly version?: string;
  readonly checks?: Readonly<Record<string, HealthBodyCheck>>;
}

/** The `/health/ready` body. */
export interface ReadyBody {
  readonly status: HealthStatus;
  readonly reason?: NotServingReason;
  readonly checks?: Readonly<Record<string, { readonly status: HealthStatus; readonly critical: boolean }>>;
}

/** The `/health/live` body. */
export interface LiveBody {
  readonly status: 'alive';
}

/** `/health` for a finished evaluation. */
export function healthBody(
  evaluation: HealthEvaluation,
  server: ServerInfo,
  exposeDetails: boolean,
): HealthBody {
  if (!exposeDetails) {
    return {
      status: evaluation.status,
      checks: byName(evaluation.checks, (check) => ({ status: check.status })),
    };
  }
  return {
    status: evaluation.status,
    timestamp: evaluation.timestamp,
    uptime: uptimeSeconds(),
    version: server.version,
    checks: byName(evaluation.checks, detailedCheck),
  };
}

/** `/health/ready` for a finished evaluation. */
export function readyBody(evaluation: HealthEvaluation): ReadyBody {
  return {
    status: evaluation.status,
    checks: byName(evaluation.checks, (check) => ({ status: check.status, critical: check.critical })),
  };
}

/** `/health` while starting or shutting down: no check ran, so there are none to show. */
export function notServingHealthBody(
  reason: NotServingReason,
  server: ServerInfo,
  exposeDetails: boolean,
): HealthBody {
  if (!exposeDetails) return { status: 'unhealthy', reason };
  return {
    status: 'unhealthy',
    reason,
    timestamp: new Date().toISOString(),
    uptime: uptimeSeconds(),
    version: server.version,
  };
}

/** `/health/ready` while starting or shutting down. */
export function notServingReadyBody(reason: NotServingReason): ReadyBody {
  return { status: 'unhealthy', reason };
}

/** `/health/live`: the process answers, nothing more is claimed. */
export const LIVE_BODY: LiveBody = { status: 'alive' };

/** A JSON body serialised once, with the headers it is sent with (never mutated: shared by every answer). */
export interface Payload {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

const encoder = new TextEncoder();

/** Serialises `body` once, for answers that repeat it. */
export function payloadOf(body: unknown): Payload {
  const json = JSON.stringify(body);
  return {
    body: json,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'content-length': String(encoder.encode(json).byteLength),
    },
  };
}

/** An answer with a serialised JSON body (shared, never mutated). */
export function answerOf(status: number, payload: Payload): PlainHttpAnswer {
  return { status, headers: payload.headers, body: payload.body };
}

/** `/health/live`'s answer, built once. */
export const LIVE_ANSWER: PlainHttpAnswer = answerOf(200, payloadOf(LIVE_BODY));

const NOT_ALLOWED_PAYLOAD = payloadOf({ error: 'method_not_allowed', allow: ['GET', 'HEAD'] });

/** Answers a method other than GET and HEAD (for transports that hand every method to the route). */
export const METHOD_NOT_ALLOWED: PlainHttpAnswer = {
  status: 405,
  headers: { ...NOT_ALLOWED_PAYLOAD.headers, allow: 'GET, HEAD' },
  body: NOT_ALLOWED_PAYLOAD.body,
};

/**
 * The web-standard form of a route that answers plainly: the same answer as a `Response` (what the fetch
 * handler and other web runtimes call; node transports call the plain form). HEAD gets no body.
 */
export function webHandlerOf(
  plain: (head: HttpRequestHead) => PlainHttpAnswer | Promise<PlainHttpAnswer>,
): (request: Request) => Response | Promise<Response> {
  return (request) => {
    const answer = plain(headOf(request));
    return 'then' in answer
      ? answer.then((settled) => responseOf(request, settled))
      : responseOf(request, answer);
  };
}

function responseOf(request: Request, answer: PlainHttpAnswer): Response {
  return new Response(request.method === 'HEAD' ? null : (answer.body ?? null), {
    status: answer.status,
    headers: answer.headers,
  });
}

/**
 * What the health routes read of a web request: its method (the rest, parsed only if read, for the
 * contract). A class, so that the lazy `url` is a prototype getter: one in an object literal would give each
 * probe's object its own hidden class, kept in V8's old generation with the request it reaches.
 */
class WebHead implements HttpRequestHead {
  readonly method: string;
  readonly header: (name: string) => string | undefined;
  readonly #request: Request;

  constructor(request: Request) {
    this.method = request.method;
    this.#request = request;
    // A const first: a function literal assigned straight to a property is allocated in the old generation
    // (scripts/check-structure.mjs, rule 4).
    const header = (name: string) => request.headers.get(name) ?? undefined;
    this.header = header;
  }

  get url(): string {
    const url = new URL(this.#request.url);
    return url.pathname + url.search;
  }
}

function headOf(request: Request): HttpRequestHead {
  return new WebHead(request);
}

function detailedCheck(check: HealthCheckOutcome): HealthBodyCheck {
  const body: { -readonly [K in keyof HealthBodyCheck]: HealthBodyCheck[K] } = {
    status: check.status,
    critical: check.critical,
    durationMs: check.durationMs,
  };
  if (check.error !== undefined) body.error = check.error;
  if (check.timedOut) body.timedOut = true;
  if (check.message !== undefined) body.message = check.message;
  if (check.details !== undefined) body.details = check.details;
  return body;
}

function byName<T>(
  checks: readonly HealthCheckOutcome[],
  map: (check: HealthCheckOutcome) => T,
): Record<string, T> {
  // A null prototype: a check may legitimately be called "constructor" or "__proto__".
  const result: Record<string, T> = Object.create(null);
  for (const check of checks) result[check.name] = map(check);
  return result;
}

function uptimeSeconds(): number {
  return Math.round(process.uptime() * 1000) / 1000;
}
