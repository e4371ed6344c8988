import { afterEach, describe, expect, it } from 'vitest';
import type { HealthPluginOptions, HealthStatus } from './definitions.js';
import { healthPlugin } from './plugin.js';
import { expectedServerStatus, ownStatus } from './test-behaviours.js';
import { definition, expectEndpoints, ROWS, type Row } from './test-expect.js';
import { send } from './test-http.js';
import { startTestServer, type TestServer } from './test-server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(options: HealthPluginOptions): Promise<TestServer> {
  // cacheTtlMs 0: each request of a row sees a fresh run, so rows never depend on each other.
  const server = await startTestServer(healthPlugin({ cacheTtlMs: 0, ...options }));
  servers.push(server);
  return server;
}

function expectedStatusOf(row: Row): HealthStatus {
  return expectedServerStatus([{ status: ownStatus(row.behaviour), critical: row.critical }]);
}

describe('one check', () => {
  it.each(ROWS)('$behaviour, critical $critical', async (row) => {
    const server = await serve({ checks: [definition('dependency', row)] });
    await expectEndpoints(server.url, { dependency: row });
  });

  it('spells the table out: critical failures are 503, non-critical ones 200 degraded', () => {
    expect(
      ROWS.map(
        (row) => `${row.behaviour}/${row.critical ? 'critical' : 'optional'}: ${expectedStatusOf(row)}`,
      ),
    ).toMatchInlineSnapshot(`
        [
          "healthy/critical: healthy",
          "healthy/optional: healthy",
          "degraded/critical: degraded",
          "degraded/optional: degraded",
          "unhealthy/critical: unhealthy",
          "unhealthy/optional: degraded",
          "throws/critical: unhealthy",
          "throws/optional: degraded",
          "rejects a non-Error/critical: unhealthy",
          "rejects a non-Error/optional: degraded",
          "times out/critical: unhealthy",
          "times out/optional: degraded",
          "resolves garbage/critical: unhealthy",
          "resolves garbage/optional: degraded",
        ]
      `);
  });
});

describe('several checks', () => {
  const HEALTHY_CRITICAL: Row = { behaviour: 'healthy', critical: true };
  const HEALTHY_OPTIONAL: Row = { behaviour: 'healthy', critical: false };

  it.each(ROWS)('$behaviour, critical $critical, beside healthy ones', async (row) => {
    const checks = { first: HEALTHY_CRITICAL, subject: row, last: HEALTHY_OPTIONAL };
    const server = await serve({ checks: Object.entries(checks).map(([name, r]) => definition(name, r)) });
    await expectEndpoints(server.url, checks);
  });

  const MIXES: { readonly title: string; readonly rows: readonly Row[] }[] = [
    { title: 'every row of the matrix at once', rows: ROWS },
    { title: 'every behaviour, all non-critical', rows: ROWS.filter((row) => !row.critical) },
    {
      title: 'critical ones healthy or degraded, optional ones failing',
      rows: [
        { behaviour: 'healthy', critical: true },
        { behaviour: 'degraded', critical: true },
        ...ROWS.filter((row) => !row.critical),
      ],
    },
    {
      title: 'one critical timeout among healthy ones',
      rows: [HEALTHY_CRITICAL, HEALTHY_OPTIONAL, { behaviour: 'times out', critical: true }],
    },
    {
      title: 'degraded and healthy only',
      rows: [
        HEALTHY_CRITICAL,
        { behaviour: 'degraded', critical: false },
        { behaviour: 'degraded', critical: true },
      ],
    },
  ];

  it.each(MIXES)('$title', async ({ rows }) => {
    const checks = Object.fromEntries(rows.map((row, index) => [`check-${index}`, row]));
    const server = await serve({
      checks: Object.entries(checks).map(([name, row]) => definition(name, row)),
    });
    await expectEndpoints(server.url, checks);
  });

  it('no checks: healthy', async () => {
    const server = await serve({ checks: [] });
    await expectEndpoints(server.url, {});
  });
});

describe('HTTP surface', () => {
  const PATHS = ['/health', '/health/ready', '/health/live'];

  it.each(PATHS)('HEAD %s answers like GET, without a body', async (path) => {
    const server = await serve({ checks: [definition('db', { behaviour: 'unhealthy', critical: true })] });
    const get = await send(server.url + path);
    const head = await send(server.url + path, { method: 'HEAD' });
    expect(head.status).toBe(get.status);
    expect(head.text).toBe('');
    for (const header of ['content-type', 'cache-control']) {
      expect(head.headers[header], header).toBe(get.headers[header]);
    }
    // The length a GET body would have (uptime and durations make /health's vary by a digit).
    expect(Number(head.headers['content-length'])).toBeGreaterThan(10);
  });

  it.each(PATHS.flatMap((path) => ['POST', 'PUT', 'DELETE', 'PATCH'].map((method) => ({ path, method }))))(
    '$method $path: 405 with Allow: GET, HEAD, and no check runs',
    async ({ path, method }) => {
      let calls = 0;
      const server = await serve({
        checks: [
          {
            name: 'db',
            critical: true,
            check: async () => {
              calls += 1;
              return { status: 'healthy' };
            },
          },
        ],
      });
      const answer = await send(server.url + path, { method });
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe('GET, HEAD');
      expect(calls).toBe(0);
    },
  );

  it('registers exactly three GET routes, so that transports answer HEAD and 405 themselves', async () => {
    const server = await serve({ checks: [] });
    expect(server.routes.map((route) => `${route.method} ${route.path}`)).toEqual([
      'GET /health',
      'GET /health/ready',
      'GET /health/live',
    ]);
  });

  it('ignores the query string', async () => {
    const server = await serve({ checks: [] });
    expect((await send(`${server.url}/health/ready?verbose=1`)).json).toEqual({
      status: 'healthy',
      checks: {},
    });
  });

  it('serves configurable paths, and nothing at the defaults', async () => {
    const server = await serve({
      checks: [],
      paths: { health: '/status', live: '/livez', ready: '/readyz' },
    });
    expect((await send(`${server.url}/status`)).json).toMatchObject({ status: 'healthy', checks: {} });
    expect((await send(`${server.url}/livez`)).json).toEqual({ status: 'alive' });
    expect((await send(`${server.url}/readyz`)).json).toEqual({ status: 'healthy', checks: {} });
    for (const path of ['/health', '/health/live', '/health/ready']) {
      expect((await send(server.url + path)).status, path).toBe(404);
    }
  });

  it('exposeDetails: false keeps only the status fields in /health; /health/ready is unchanged', async () => {
    const server = await serve({
      exposeDetails: false,
      checks: [
        definition('db', { behaviour: 'throws', critical: true }),
        definition('cache', { behaviour: 'unhealthy', critical: false }),
      ],
    });
    const health = await send(`${server.url}/health`);
    expect(health.status).toBe(503);
    expect(health.json).toEqual({
      status: 'unhealthy',
      checks: { db: { status: 'unhealthy' }, cache: { status: 'unhealthy' } },
    });
    expect(health.text).not.toContain('ECONNREFUSED');
    const ready = await send(`${server.url}/health/ready`);
    expect(ready.json).toEqual({
      status: 'unhealthy',
      checks: {
        db: { status: 'unhealthy', critical: true },
        cache: { status: 'unhealthy', critical: false },
      },
    });
  });

  it('shows a check named like an Object.prototype member as a plain key', async () => {
    const server = await serve({
      checks: [
        { name: '__proto__', critical: false, check: async () => ({ status: 'degraded' }) },
        { name: 'constructor', critical: true, check: async () => ({ status: 'healthy' }) },
      ],
    });
    const ready = await send(`${server.url}/health/ready`);
    expect(ready.text).toBe(
      '{"status":"degraded","checks":{"__proto__":{"status":"degraded","critical":false},"constructor":{"status":"healthy","critical":true}}}',
    );
  });
});
