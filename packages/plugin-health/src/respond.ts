// The HTTP side: response bodies of the three endpoints and how they are written.
import type { ServerInfo } from '@pier/core';
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

/** `/health/live`'s answer, serialised once. */
export const LIVE_PAYLOAD: Payload = payloadOf(LIVE_BODY);

/** A JSON answer. HEAD gets the same headers without a body. */
export function respondJson(request: Request, status: number, body: unknown): Response {
  return respondPayload(request, status, payloadOf(body));
}

/** A serialised JSON answer, as `respondJson` makes it. */
export function respondPayload(
  request: Request,
  status: number,
  payload: Payload,
  extra?: Readonly<Record<string, string>>,
): Response {
  return new Response(request.method === 'HEAD' ? null : payload.body, {
    status,
    headers: extra === undefined ? payload.headers : { ...payload.headers, ...extra },
  });
}

/** Answers a method other than GET and HEAD (for transports that hand every method to the route). */
export function respondMethodNotAllowed(request: Request): Response {
  return respondPayload(request, 405, payloadOf({ error: 'method_not_allowed', allow: ['GET', 'HEAD'] }), {
    allow: 'GET, HEAD',
  });
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
