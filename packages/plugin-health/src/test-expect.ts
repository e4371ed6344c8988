// Test helper (not built): the matrix rows and the assertion of all three endpoints for a set of checks.
import { expect } from 'vitest';
import type { HealthCheckDefinition } from './definitions.js';
import {
  BEHAVIOURS,
  type Behaviour,
  checkThat,
  expectedCheck,
  expectedServerStatus,
  ownStatus,
  TABLE_TIMEOUT_MS,
} from './test-behaviours.js';
import { send } from './test-http.js';

export interface Row {
  readonly behaviour: Behaviour;
  readonly critical: boolean;
}

export const ROWS: Row[] = BEHAVIOURS.flatMap((behaviour) => [
  { behaviour, critical: true },
  { behaviour, critical: false },
]);

export function definition(name: string, row: Row): HealthCheckDefinition {
  return { name, critical: row.critical, check: checkThat(row.behaviour), timeoutMs: TABLE_TIMEOUT_MS };
}

/** Probes the three endpoints under `base` and asserts codes and bodies against the expected checks. */
export async function expectEndpoints(
  base: string,
  checks: Record<string, Row>,
  version = '1.2.3',
): Promise<void> {
  const status = expectedServerStatus(
    Object.values(checks).map((row) => ({ status: ownStatus(row.behaviour), critical: row.critical })),
  );
  const code = status === 'unhealthy' ? 503 : 200;

  const health = await send(`${base}/health`);
  expect(health.status).toBe(code);
  expect(health.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(health.headers['cache-control']).toBe('no-store');
  expect(health.json).toEqual({
    status,
    timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    uptime: expect.any(Number),
    version,
    checks: Object.fromEntries(
      Object.entries(checks).map(([name, row]) => [
        name,
        { ...expectedCheck(row.behaviour), critical: row.critical, durationMs: expect.any(Number) },
      ]),
    ),
  });
  expect(health.text).not.toMatch(/\n\s+at /); // never a stack trace

  const ready = await send(`${base}/health/ready`);
  expect(ready.status).toBe(code);
  expect(ready.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(ready.headers['cache-control']).toBe('no-store');
  expect(ready.json).toEqual({
    status,
    checks: Object.fromEntries(
      Object.entries(checks).map(([name, row]) => [
        name,
        { status: ownStatus(row.behaviour), critical: row.critical },
      ]),
    ),
  });

  const live = await send(`${base}/health/live`);
  expect(live.status).toBe(200);
  expect(live.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(live.headers['cache-control']).toBe('no-store');
  expect(live.json).toEqual({ status: 'alive' });
}
