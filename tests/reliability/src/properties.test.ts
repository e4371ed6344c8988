// Property tests (fast-check): the argv/env parser only ever returns its typed result; health
// aggregation is "worst contribution wins" over random sets of checks, observed over HTTP; and random
// interleavings of probes and close() never see readiness 200 once draining began.
import { ConfigError, loadConfig, parseConfig, z } from '@pier/config';
import { createServer, defineServer } from '@pier/core';
import { configSpec } from '@pier/example-server/dist/config.js';
import { type HealthCheckDefinition, healthPlugin } from '@pier/plugin-health';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const spec = {
  port: { schema: z.number().int().min(0).max(65_535).default(3000), env: 'PORT' },
  debug: { schema: z.boolean().default(false), env: 'DEBUG' },
  mode: { schema: z.enum(['fast', 'safe']).default('fast'), env: 'MODE' },
  apiKey: { schema: z.string().min(1), env: 'API_KEY', secret: true },
  tags: { schema: z.string().optional(), env: 'TAGS' },
} as const;

const token = fc.oneof(
  fc.constantFrom(
    '--port',
    '--debug',
    '--no-debug',
    '--mode',
    '--api-key',
    '--tags',
    '--',
    '-',
    '-p',
    '--help',
    '--version',
  ),
  fc.constantFrom(
    'true',
    'false',
    '1',
    '42',
    '4.2',
    '1e3',
    '-1',
    '9007199254740993',
    '',
    ' ',
    'safe',
    '--port=',
    '--=x',
  ),
  fc.string({ maxLength: 12 }).map((text) => `--${text}`),
  fc.string({ maxLength: 12 }),
);
const argv = fc.array(token, { maxLength: 10 });
const env = fc.dictionary(
  fc.constantFrom(
    'PORT',
    'DEBUG',
    'MODE',
    'API_KEY',
    'TAGS',
    'OTHER',
    'DATABASE_URL',
    'LOG_LEVEL',
    'TRANSPORT',
  ),
  fc.oneof(fc.constantFrom('', 'true', 'yes', '1', '70000', 'safe', 'debug'), fc.string({ maxLength: 12 })),
);

describe('config parser', () => {
  it('parseConfig never throws: it returns ok with a config, or issues', () => {
    fc.assert(
      fc.property(argv, env, (args, vars) => {
        for (const s of [spec, configSpec(vars)]) {
          const result = parseConfig(s, { argv: args, env: vars });
          if (result.ok) expect(result.config).toBeDefined();
          else expect(result.issues.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('loadConfig returns a config or, when exit returns, throws only a ConfigError', () => {
    fc.assert(
      fc.property(argv, env, (args, vars) => {
        const sink = { write: () => true };
        try {
          loadConfig(spec, {
            argv: args,
            env: vars,
            stderr: sink,
            stdout: sink,
            exit: () => undefined as never,
          });
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
        }
      }),
      { numRuns: 300 },
    );
  });
});

type Behaviour = 'healthy' | 'degraded' | 'unhealthy' | 'throws' | 'rejects' | 'garbage';
const RANK = { healthy: 0, degraded: 1, unhealthy: 2 } as const;
const STATUS = ['healthy', 'degraded', 'unhealthy'] as const;

function checkOf(name: string, critical: boolean, behaviour: Behaviour): HealthCheckDefinition {
  return {
    name,
    critical,
    check: async () => {
      if (behaviour === 'throws') throw new Error('down');
      if (behaviour === 'rejects') return Promise.reject('down');
      if (behaviour === 'garbage') return { status: 'fine' } as never;
      return { status: behaviour };
    },
  };
}

/** The model: a check's own status; critical contributes it, non-critical at worst degraded. */
function expected(checks: readonly { critical: boolean; behaviour: Behaviour }[]): (typeof STATUS)[number] {
  let worst = 0;
  for (const { critical, behaviour } of checks) {
    const own = behaviour in RANK ? RANK[behaviour as keyof typeof RANK] : RANK.unhealthy;
    worst = Math.max(worst, critical ? own : Math.min(own, RANK.degraded));
  }
  return STATUS[worst] as (typeof STATUS)[number];
}

async function withServer<T>(
  checks: HealthCheckDefinition[],
  run: (origin: string) => Promise<T>,
): Promise<T> {
  const server = createServer(
    defineServer({ name: 'prop', version: '1.0.0', plugins: [healthPlugin({ checks, cacheTtlMs: 0 })] }),
    {
      logLevel: 'error',
      handleSignals: false,
    },
  );
  const { url } = await server.listen({ transport: 'streamable-http', port: 0 });
  try {
    return await run(new URL(url).origin);
  } finally {
    await server.close();
  }
}

describe('health aggregation', () => {
  it('over HTTP equals "worst contribution wins" for random sets of checks', async () => {
    const checkSet = fc.array(
      fc.record({
        critical: fc.boolean(),
        behaviour: fc.constantFrom<Behaviour>(
          'healthy',
          'degraded',
          'unhealthy',
          'throws',
          'rejects',
          'garbage',
        ),
      }),
      { maxLength: 6 },
    );
    await fc.assert(
      fc.asyncProperty(checkSet, async (set) => {
        const checks = set.map((c, i) => checkOf(`c${i}`, c.critical, c.behaviour));
        const want = expected(set);
        await withServer(checks, async (origin) => {
          for (const path of ['/health', '/health/ready']) {
            const res = await fetch(`${origin}${path}`);
            const body = (await res.json()) as { status: string };
            expect(body.status).toBe(want);
            expect(res.status).toBe(want === 'unhealthy' ? 503 : 200);
          }
        });
      }),
      { numRuns: 30 },
    );
  });
});

describe('lifecycle', () => {
  it('no probe started after close() began sees readiness 200', async () => {
    const step = fc.oneof(
      fc.constant({ kind: 'probe' as const }),
      fc.constant({ kind: 'burst' as const }),
      fc.integer({ min: 0, max: 30 }).map((ms) => ({ kind: 'wait' as const, ms })),
    );
    const plan = fc.record({
      before: fc.array(step, { maxLength: 5 }),
      after: fc.array(step, { minLength: 1, maxLength: 6 }),
      drainDelayMs: fc.integer({ min: 0, max: 60 }),
      path: fc.constantFrom('/health/ready', '/health'),
    });
    await fc.assert(
      fc.asyncProperty(plan, async ({ before, after, drainDelayMs, path }) => {
        const server = createServer(
          defineServer({ name: 'life', version: '1.0.0', plugins: [healthPlugin({ checks: [] })] }),
          { logLevel: 'error', handleSignals: false },
        );
        const { url } = await server.listen({ transport: 'streamable-http', port: 0 });
        const target = `${new URL(url).origin}${path}`;
        const probe = () =>
          fetch(target).then(
            (res) => res.status,
            () => 'refused' as const,
          );
        const run = async (steps: typeof before, into: Promise<number | 'refused'>[]) => {
          for (const s of steps) {
            if (s.kind === 'probe') into.push(probe());
            else if (s.kind === 'burst') into.push(...Array.from({ length: 5 }, probe));
            else await new Promise((r) => setTimeout(r, s.ms));
          }
        };
        const early: Promise<number | 'refused'>[] = [];
        await run(before, early);
        for (const status of await Promise.all(early)) expect(status).toBe(200);
        const closing = server.close({ drainDelayMs });
        const late: Promise<number | 'refused'>[] = [];
        await run(after, late);
        const statuses = await Promise.all(late);
        await closing;
        // Draining answers 503; once the listener closed, the connection is refused. Never 200.
        for (const status of statuses) expect([503, 'refused']).toContain(status);
      }),
      { numRuns: 25 },
    );
  });
});
