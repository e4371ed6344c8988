import { describe, expect, it } from 'vitest';
import { HealthPluginError } from './errors.js';
import { healthPlugin } from './plugin.js';

const ok = async () => ({ status: 'healthy' as const });

/** Calls healthPlugin with untyped input (as a JavaScript user could) and returns what it threw. */
function rejectionOf(options: unknown): HealthPluginError {
  try {
    healthPlugin(options as Parameters<typeof healthPlugin>[0]);
  } catch (error) {
    expect(error).toBeInstanceOf(HealthPluginError);
    return error as HealthPluginError;
  }
  throw new Error('healthPlugin() accepted invalid options');
}

describe('invalid check definitions are rejected by healthPlugin(), naming the check', () => {
  it.each<[title: string, checks: unknown, issue: string]>([
    [
      'missing name',
      [{ critical: true, check: ok }],
      'checks[0]: "name" must be a non-empty string (got nothing)',
    ],
    [
      'empty name',
      [{ name: '', critical: true, check: ok }],
      'checks[0]: "name" must be a non-empty string (got "")',
    ],
    [
      'blank name',
      [{ name: '  ', critical: true, check: ok }],
      'checks[0]: "name" must be a non-empty string (got "  ")',
    ],
    [
      'name not a string',
      [{ name: 7, critical: true, check: ok }],
      'checks[0]: "name" must be a non-empty string (got 7)',
    ],
    [
      'duplicate names',
      [
        { name: 'db', critical: true, check: ok },
        { name: 'db', critical: false, check: ok },
      ],
      'check "db" (checks[1]): duplicate name; check names must be unique',
    ],
    [
      'critical missing',
      [{ name: 'db', check: ok }],
      'check "db" (checks[0]): "critical" must be a boolean (got nothing)',
    ],
    [
      'critical a string',
      [{ name: 'db', critical: 'true', check: ok }],
      'check "db" (checks[0]): "critical" must be a boolean (got "true")',
    ],
    [
      'critical a number',
      [{ name: 'db', critical: 1, check: ok }],
      'check "db" (checks[0]): "critical" must be a boolean (got 1)',
    ],
    [
      'check missing',
      [{ name: 'db', critical: true }],
      'check "db" (checks[0]): "check" must be a function (got nothing)',
    ],
    [
      'check a promise',
      [{ name: 'db', critical: true, check: ok() }],
      'check "db" (checks[0]): "check" must be a function (got an object)',
    ],
    ...[0, -5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31].map((timeoutMs): [string, unknown, string] => [
      `timeoutMs ${timeoutMs}`,
      [{ name: 'db', critical: true, check: ok, timeoutMs }],
      `check "db" (checks[0]): "timeoutMs" must be a positive number of milliseconds, at most 2147483647 (got ${timeoutMs})`,
    ]),
    [
      'timeoutMs a string',
      [{ name: 'db', critical: true, check: ok, timeoutMs: '100' }],
      'check "db" (checks[0]): "timeoutMs" must be a positive number of milliseconds, at most 2147483647 (got "100")',
    ],
    [
      'a misspelt property',
      [{ name: 'db', critical: true, check: ok, timeout: 100 }],
      'check "db" (checks[0]): unknown property "timeout"',
    ],
    ['not an object', [null], 'checks[0]: must be an object (got null)'],
  ])('%s', (_title, checks, issue) => {
    const error = rejectionOf({ checks });
    expect(error.code).toBe('HEALTH_OPTIONS_INVALID');
    expect(error.issues).toEqual([issue]);
    expect(error.message).toBe(`healthPlugin: ${issue}`);
  });

  it('lists every problem at once, one line each', () => {
    const error = rejectionOf({
      checks: [
        { name: 'db', critical: 'yes', check: ok },
        { name: 'cache', critical: false, check: 'ping' },
      ],
    });
    expect(error.issues).toHaveLength(2);
    expect(error.message).toBe(
      [
        'healthPlugin: 2 problems:',
        '  - check "db" (checks[0]): "critical" must be a boolean (got "yes")',
        '  - check "cache" (checks[1]): "check" must be a function (got "ping")',
      ].join('\n'),
    );
  });
});

describe('invalid plugin options are rejected too', () => {
  it.each<[title: string, options: unknown, issue: string]>([
    ['no options', undefined, 'options must be an object with a "checks" array (got nothing)'],
    ['checks missing', {}, 'option "checks" must be an array of check definitions (got nothing)'],
    [
      'checks not an array',
      { checks: { db: ok } },
      'option "checks" must be an array of check definitions (got an object)',
    ],
    [
      'timeoutMs 0',
      { checks: [], timeoutMs: 0 },
      'option "timeoutMs" must be a positive number of milliseconds, at most 2147483647 (got 0)',
    ],
    [
      'cacheTtlMs negative',
      { checks: [], cacheTtlMs: -1 },
      'option "cacheTtlMs" must be a finite number ≥ 0 (got -1)',
    ],
    [
      'exposeDetails a string',
      { checks: [], exposeDetails: 'no' },
      'option "exposeDetails" must be a boolean (got "no")',
    ],
    [
      'readyWhen not a promise',
      { checks: [], readyWhen: true },
      'option "readyWhen" must be a promise (got true)',
    ],
    ['an unknown option', { checks: [], cacheTTL: 5 }, 'unknown option "cacheTTL"'],
    [
      'a relative path',
      { checks: [], paths: { ready: 'ready' } },
      'option "paths.ready" must be a path starting with "/", without "?", "#" or spaces',
    ],
    [
      'two endpoints on one path',
      { checks: [], paths: { live: '/health' } },
      'option "paths": health, live and ready must be three different paths',
    ],
    [
      'an unknown endpoint',
      { checks: [], paths: { startup: '/s' } },
      'option "paths": unknown endpoint "startup" (use health, live, ready)',
    ],
  ])('%s', (_title, options, issue) => {
    const error = rejectionOf(options);
    expect(error.code).toBe('HEALTH_OPTIONS_INVALID');
    expect(error.issues).toEqual([issue]);
  });

  it('accepts the smallest valid options, and a check without its own timeout', () => {
    expect(healthPlugin({ checks: [] }).name).toBe('health');
    expect(() =>
      healthPlugin({ checks: [{ name: 'db', critical: false, check: ok }], timeoutMs: 0.5 }),
    ).not.toThrow();
  });
});
