// Pure aggregation: how check statuses become the server's status and an HTTP status code.
import type { HealthStatus } from './definitions.js';

/** What aggregation needs to know about one check's outcome. */
export interface StatusContribution {
  readonly status: HealthStatus;
  readonly critical: boolean;
}

const SEVERITY: Record<HealthStatus, number> = { healthy: 0, degraded: 1, unhealthy: 2 };

/**
 * What one check contributes: a critical check its own status, a non-critical one at worst `degraded`
 * (an optional dependency being down must not take the server out of rotation).
 */
export function contributionOf(outcome: StatusContribution): HealthStatus {
  return !outcome.critical && outcome.status === 'unhealthy' ? 'degraded' : outcome.status;
}

/** The worst contribution wins; no checks means `healthy`. */
export function aggregateStatus(outcomes: Iterable<StatusContribution>): HealthStatus {
  let worst: HealthStatus = 'healthy';
  for (const outcome of outcomes) {
    const contribution = contributionOf(outcome);
    if (SEVERITY[contribution] > SEVERITY[worst]) worst = contribution;
  }
  return worst;
}

/** `healthy` and `degraded` still serve traffic (200); `unhealthy` does not (503). */
export function httpStatusOf(status: HealthStatus): 200 | 503 {
  return status === 'unhealthy' ? 503 : 200;
}

/** Whether a value is one of the three statuses (checks may resolve anything). */
export function isHealthStatus(value: unknown): value is HealthStatus {
  return value === 'healthy' || value === 'degraded' || value === 'unhealthy';
}
