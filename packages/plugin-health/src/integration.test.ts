// The plugin in a real Pier server: createServer(…).listen({ transport: 'streamable-http', port: 0 }).
import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { HealthPluginOptions } from './definitions.js';
import { healthPlugin } from './plugin.js';
import { definition, expectEndpoints, ROWS } from './test-expect.js';
import { gate, send } from './test-http.js';
import { countingRoutes, listenWith, type RunningPier } from './test-pier.js';

const running: RunningPier[] = [];
const agents: Agent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) agent.destroy();
  await Promise.all(running.splice(0).map((pier) => pier.close()));
});

async function serve(options: HealthPluginOptions): Promise<RunningPier> {
  const pier = await listenWith([healthPlugin({ cacheTtlMs: 0, ...options })]);
  running.push(pier);
  return pier;
}

describe('through createServer().listen({ transport: "streamable-http" })', () => {
  it.each(ROWS)('one check that $behaviour, critical $critical', async (row) => {
    const { base } = await serve({ checks: [definition('dependency', row)] });
    await expectEndpoints(base, { dependency: row }, '2.0.0');
  });

  it('every row of the matrix at once', async () => {
    const checks = Object.fromEntries(ROWS.map((row, index) => [`check-${index}`, row]));
    const { base } = await serve({
      checks: Object.entries(checks).map(([name, row]) => definition(name, row)),
    });
    await expectEndpoints(base, checks, '2.0.0');
  });

  it.each(['/health', '/health/ready', '/health/live'])('HEAD %s is GET without a body', async (path) => {
    const { base } = await serve({ checks: [] });
    const get = await send(base + path);
    const head = await send(base + path, { method: 'HEAD' });
    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.headers['cache-control']).toBe('no-store');
  });

  it.each(
    ['/health', '/health/ready', '/health/live'].flatMap((path) =>
      ['POST', 'PUT', 'DELETE'].map((method) => ({ path, method })),
    ),
  )('$method $path: 405 with Allow: GET, HEAD', async ({ path, method }) => {
    const { base } = await serve({ checks: [] });
    const answer = await send(base + path, { method });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, HEAD');
  });

  it('readiness waits for readyWhen / markReady() after listen', async () => {
    const plugin = healthPlugin({ checks: [], readyWhen: new Promise(() => {}) });
    const pier = await listenWith([plugin]);
    running.push(pier);
    const starting = await send(`${pier.base}/health/ready`);
    expect(starting.status).toBe(503);
    expect(starting.json).toEqual({ status: 'unhealthy', reason: 'starting' });
    expect((await send(`${pier.base}/health/live`)).status).toBe(200);
    plugin.markReady();
    expect((await send(`${pier.base}/health/ready`)).status).toBe(200);
  });

  it('readiness is 503 "shutting_down" as soon as close() starts draining; live stays 200', async () => {
    let calls = 0;
    const { server, base } = await serve({
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
    expect((await send(`${base}/health/ready`)).status).toBe(200);
    // A drain delay keeps the listener open while draining, as on SIGTERM (a window, not a measurement).
    const closed = server.close({ drainDelayMs: 2000 });
    expect(server.state).toBe('draining');
    const ready = await send(`${base}/health/ready`);
    expect(ready.status).toBe(503);
    expect(ready.json).toEqual({ status: 'unhealthy', reason: 'shutting_down' });
    expect((await send(`${base}/health`)).json).toMatchObject({
      status: 'unhealthy',
      reason: 'shutting_down',
    });
    const live = await send(`${base}/health/live`);
    expect(live.status).toBe(200);
    expect(live.json).toEqual({ status: 'alive' });
    expect(calls).toBe(1);
    await closed;
  });

  it('1,000 concurrent /health/ready requests cost each check exactly one call', {
    timeout: 30_000,
  }, async () => {
    const release = gate();
    let calls = 0;
    const counted = countingRoutes(
      healthPlugin({
        cacheTtlMs: 0,
        checks: [
          {
            name: 'db',
            critical: true,
            timeoutMs: 20_000,
            check: async () => {
              calls += 1;
              await release.promise;
              return { status: 'healthy' };
            },
          },
        ],
      }),
    );
    const pier = await listenWith([counted.plugin]);
    running.push(pier);
    const agent = new Agent({ keepAlive: true, maxSockets: 1000 });
    agents.push(agent);

    const answers = Array.from({ length: 1000 }, () =>
      send(`${pier.base}/health/ready`, { agent, timeoutMs: 25_000 }),
    );
    await counted.waitForRouted(1000);
    release.open();
    const statuses = (await Promise.all(answers)).map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1000);
    expect(calls).toBe(1);
  });

  it('a probe that hangs up cancels nothing and logs nothing above info', async () => {
    const release = gate();
    let calls = 0;
    const counted = countingRoutes(
      healthPlugin({
        cacheTtlMs: 0,
        checks: [
          {
            name: 'db',
            critical: true,
            timeoutMs: 20_000,
            check: async () => {
              calls += 1;
              await release.promise;
              return { status: 'healthy' };
            },
          },
        ],
      }),
    );
    const pier = await listenWith([counted.plugin]);
    running.push(pier);
    await new Promise<void>((resolve) => {
      const req = request(`${pier.base}/health`, { agent: false });
      req.on('error', () => resolve());
      req.end();
      void counted.waitForRouted(1).then(() => req.destroy());
    });
    const waiting = send(`${pier.base}/health/ready`);
    await counted.waitForRouted(2);
    release.open();
    expect((await waiting).status).toBe(200);
    expect(calls).toBe(1);
    expect(pier.log.filter((line) => / (WARN|ERROR) /.test(line))).toEqual([]);
  });
});
