import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { aggregateStatus, contributionOf, httpStatusOf } from './aggregate.js';
import type { HealthStatus } from './definitions.js';
import { normalizeOptions } from './definitions.js';
import { HealthEvaluator } from './evaluate.js';
import { healthPlugin } from './plugin.js';
import {
  BEHAVIOURS,
  checkThat,
  expectedServerStatus,
  ownStatus,
  TABLE_TIMEOUT_MS,
} from './test-behaviours.js';
import { send } from './test-http.js';
import { startTestServer, type TestServer } from './test-server.js';

const status = fc.constantFrom<HealthStatus>('healthy', 'degraded', 'unhealthy');
const outcome = fc.record({ status, critical: fc.boolean() });
const behaviourRow = fc.record({ behaviour: fc.constantFrom(...BEHAVIOURS), critical: fc.boolean() });

describe('aggregation', () => {
  it('a critical check contributes its status, a non-critical one at worst degraded', () => {
    expect(contributionOf({ status: 'unhealthy', critical: true })).toBe('unhealthy');
    expect(contributionOf({ status: 'unhealthy', critical: false })).toBe('degraded');
    expect(contributionOf({ status: 'degraded', critical: false })).toBe('degraded');
    expect(contributionOf({ status: 'healthy', critical: false })).toBe('healthy');
  });

  it('no checks: healthy; degraded still serves (200), unhealthy does not (503)', () => {
    expect(aggregateStatus([])).toBe('healthy');
    expect([httpStatusOf('healthy'), httpStatusOf('degraded'), httpStatusOf('unhealthy')]).toEqual([
      200, 200, 503,
    ]);
  });

  it('property: always equals "the worst contribution wins"', () => {
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 30 }), (outcomes) => {
        expect(aggregateStatus(outcomes)).toBe(expectedServerStatus(outcomes));
      }),
      { numRuns: 2000 },
    );
  });

  it('property: order does not matter, and adding a healthy check changes nothing', () => {
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 20 }), fc.boolean(), (outcomes, critical) => {
        const result = aggregateStatus(outcomes);
        expect(aggregateStatus([...outcomes].reverse())).toBe(result);
        expect(aggregateStatus([...outcomes, { status: 'healthy', critical }])).toBe(result);
      }),
    );
  });
});

describe('aggregation of real check runs', () => {
  it('property: whatever the checks do (throw, time out, resolve garbage…), the worst contribution wins', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(behaviourRow, { maxLength: 8 }), async (rows) => {
        const { checks } = normalizeOptions({
          checks: rows.map((row, index) => ({
            name: `check-${index}`,
            critical: row.critical,
            check: checkThat(row.behaviour),
            timeoutMs: 10,
          })),
        });
        const evaluation = await new HealthEvaluator(checks, { cacheTtlMs: 0 }).evaluate();
        const expected = rows.map((row) => ({ status: ownStatus(row.behaviour), critical: row.critical }));
        expect(evaluation.checks.map((check) => check.status)).toEqual(expected.map((check) => check.status));
        expect(evaluation.status).toBe(expectedServerStatus(expected));
      }),
      { numRuns: 60 },
    );
  });

  describe('over HTTP', () => {
    const servers: TestServer[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((server) => server.close()));
    });

    it('property: /health/ready answers 200 or 503 as the worst contribution says', {
      timeout: 30_000,
    }, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(behaviourRow, { maxLength: 6 }), async (rows) => {
          const server = await startTestServer(
            healthPlugin({
              cacheTtlMs: 0,
              checks: rows.map((row, index) => ({
                name: `check-${index}`,
                critical: row.critical,
                check: checkThat(row.behaviour),
                timeoutMs: TABLE_TIMEOUT_MS,
              })),
            }),
          );
          servers.push(server);
          const expected = expectedServerStatus(
            rows.map((row) => ({ status: ownStatus(row.behaviour), critical: row.critical })),
          );
          const ready = await send(`${server.url}/health/ready`);
          expect(ready.status).toBe(expected === 'unhealthy' ? 503 : 200);
          expect((ready.json as { status: string }).status).toBe(expected);
          await server.close();
        }),
        { numRuns: 25 },
      );
    });
  });
});
