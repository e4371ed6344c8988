import type { PierPlugin } from '@pier/core';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type HealthCheckDefinition,
  type HealthCheckResult,
  type HealthPlugin,
  type HealthPluginError,
  type HealthStatus,
  healthPlugin,
} from './index.js';

describe('public types', () => {
  it('healthPlugin() returns a PierPlugin with markReady()', () => {
    const plugin = healthPlugin({ checks: [] });
    expectTypeOf(plugin).toEqualTypeOf<HealthPlugin>();
    expectTypeOf(plugin).toExtend<PierPlugin>();
    expectTypeOf(plugin.markReady).toEqualTypeOf<() => void>();
  });

  it('accepts checks written as plain async functions, with or without the signal', () => {
    healthPlugin({
      checks: [
        { name: 'a', critical: true, check: async () => ({ status: 'healthy' }) },
        {
          name: 'b',
          critical: false,
          timeoutMs: 50,
          check: async ({ signal }) => ({
            status: signal.aborted ? 'unhealthy' : 'degraded',
            message: 'm',
            details: { n: 1 },
          }),
        },
      ],
      paths: { ready: '/readyz' },
      timeoutMs: 200,
      cacheTtlMs: 0,
      exposeDetails: false,
      readyWhen: Promise.resolve(),
    });
  });

  it('rejects statuses outside the three, and a non-boolean critical', () => {
    // @ts-expect-error 'ok' is not a HealthStatus
    const bad: HealthCheckResult = { status: 'ok' };
    const definition: HealthCheckDefinition = {
      name: 'x',
      // @ts-expect-error critical must be a boolean
      critical: 'yes',
      check: async () => ({ status: 'healthy' }),
    };
    expectTypeOf<HealthStatus>().toEqualTypeOf<'healthy' | 'degraded' | 'unhealthy'>();
    void bad;
    void definition;
  });

  it('gives errors a typed code', () => {
    expectTypeOf<HealthPluginError['code']>().toEqualTypeOf<'HEALTH_OPTIONS_INVALID'>();
    expectTypeOf<HealthPluginError['issues']>().toEqualTypeOf<readonly string[]>();
  });
});
