// Test helper (not built): the ways a check can behave, and what each must be reported as.
import type { HealthCheckDefinition, HealthStatus } from './definitions.js';

export const BEHAVIOURS = [
  'healthy',
  'degraded',
  'unhealthy',
  'throws',
  'rejects a non-Error',
  'times out',
  'resolves garbage',
] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];

/** Timeout given to every check in the tables: small, so that the timing-out rows stay quick. */
export const TABLE_TIMEOUT_MS = 30;

/** A check that behaves as told. The timing-out one never settles and ignores its signal (the worst case). */
export function checkThat(behaviour: Behaviour): HealthCheckDefinition['check'] {
  switch (behaviour) {
    case 'healthy':
      return async () => ({ status: 'healthy', details: { latencyMs: 3 } });
    case 'degraded':
      return async () => ({ status: 'degraded', message: 'replica lag 12 s' });
    case 'unhealthy':
      return async () => ({
        status: 'unhealthy',
        message: 'pool exhausted',
        details: { active: 10, max: 10 },
      });
    case 'throws':
      return async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      };
    case 'rejects a non-Error':
      return () => Promise.reject('connection refused');
    case 'times out':
      return () => new Promise(() => {});
    case 'resolves garbage':
      return (async () => ({ ok: true })) as unknown as HealthCheckDefinition['check'];
  }
}

/** The check as `/health` must show it (besides `critical` and `durationMs`). */
export function expectedCheck(behaviour: Behaviour): Record<string, unknown> {
  switch (behaviour) {
    case 'healthy':
      return { status: 'healthy', details: { latencyMs: 3 } };
    case 'degraded':
      return { status: 'degraded', message: 'replica lag 12 s' };
    case 'unhealthy':
      return { status: 'unhealthy', message: 'pool exhausted', details: { active: 10, max: 10 } };
    case 'throws':
      return { status: 'unhealthy', error: 'connect ECONNREFUSED 127.0.0.1:5432' };
    case 'rejects a non-Error':
      return { status: 'unhealthy', error: 'failed with a non-Error value: "connection refused"' };
    case 'times out':
      return { status: 'unhealthy', error: `timed out after ${TABLE_TIMEOUT_MS} ms`, timedOut: true };
    case 'resolves garbage':
      return {
        status: 'unhealthy',
        error: 'invalid result: "status" must be "healthy", "degraded" or "unhealthy", got nothing',
      };
  }
}

/** The status a check of this behaviour reports for itself. */
export function ownStatus(behaviour: Behaviour): HealthStatus {
  return expectedCheck(behaviour).status as HealthStatus;
}

/**
 * The oracle, written independently of aggregate.ts: any critical check unhealthy → unhealthy; else any
 * check not healthy → degraded; else healthy (including no checks at all).
 */
export function expectedServerStatus(
  checks: readonly { readonly status: HealthStatus; readonly critical: boolean }[],
): HealthStatus {
  if (checks.some((c) => c.critical && c.status === 'unhealthy')) return 'unhealthy';
  if (checks.some((c) => c.status !== 'healthy')) return 'degraded';
  return 'healthy';
}
