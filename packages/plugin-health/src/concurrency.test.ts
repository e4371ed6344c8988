import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { HealthCheckDefinition, HealthCheckResult, HealthPluginOptions } from './definitions.js';
import { healthPlugin } from './plugin.js';
import { gate, send } from './test-http.js';
import { startTestServer, type TestServer } from './test-server.js';

const servers: TestServer[] = [];
const agents: Agent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) agent.destroy();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(options: HealthPluginOptions): Promise<TestServer> {
  const server = await startTestServer(healthPlugin(options));
  servers.push(server);
  return server;
}

/** A check that counts its calls and answers what `result` resolves to, when the test says so. */
function gatedCheck(name: string, critical: boolean, result: () => Promise<HealthCheckResult>) {
  let calls = 0;
  const definition: HealthCheckDefinition = {
    name,
    critical,
    timeoutMs: 10_000,
    check: () => {
      calls += 1;
      return result();
    },
  };
  return { definition, calls: () => calls };
}

describe('one evaluation shared by every concurrent probe', () => {
  it('1,000 concurrent /health/ready requests cost each check exactly one call', {
    timeout: 30_000,
  }, async () => {
    const release = gate();
    const db = gatedCheck('db', true, async () => {
      await release.promise;
      return { status: 'healthy' };
    });
    const cache = gatedCheck('cache', false, async () => {
      await release.promise;
      return { status: 'degraded' };
    });
    // cacheTtlMs 0: only single-flight can keep this at one call per check.
    const server = await serve({ checks: [db.definition, cache.definition], cacheTtlMs: 0 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1000 });
    agents.push(agent);

    const answers = Array.from({ length: 1000 }, () =>
      send(`${server.url}/health/ready`, { agent, timeoutMs: 25_000 }),
    );
    await server.waitForRouted(1000);
    release.open();
    const settled = await Promise.all(answers);

    expect(db.calls()).toBe(1);
    expect(cache.calls()).toBe(1);
    expect(new Set(settled.map((answer) => `${answer.status} ${answer.text}`))).toEqual(
      new Set([
        '200 {"status":"degraded","checks":{"db":{"status":"healthy","critical":true},"cache":{"status":"degraded","critical":false}}}',
      ]),
    );
  });

  it('/health and /health/ready share the same run', async () => {
    const release = gate();
    const db = gatedCheck('db', true, async () => {
      await release.promise;
      return { status: 'healthy' };
    });
    const server = await serve({ checks: [db.definition], cacheTtlMs: 0 });
    const answers = [0, 1, 2, 3].map((i) =>
      send(`${server.url}${i % 2 === 0 ? '/health' : '/health/ready'}`),
    );
    await server.waitForRouted(4);
    release.open();
    expect((await Promise.all(answers)).map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(db.calls()).toBe(1);
  });

  it('reuses a finished result for cacheTtlMs, and not at all with 0', async () => {
    const cached = gatedCheck('db', true, async () => ({ status: 'healthy' }));
    const uncached = gatedCheck('db', true, async () => ({ status: 'healthy' }));
    const withTtl = await serve({ checks: [cached.definition], cacheTtlMs: 60_000 });
    const withoutTtl = await serve({ checks: [uncached.definition], cacheTtlMs: 0 });
    for (let i = 0; i < 3; i++) {
      await send(`${withTtl.url}/health`);
      await send(`${withoutTtl.url}/health`);
    }
    expect(cached.calls()).toBe(1);
    expect(uncached.calls()).toBe(3);
  });
});

describe('a check that outlives its timeout', () => {
  it('is not called again until its last call settled, and is reported timed out meanwhile', async () => {
    const release = gate();
    let calls = 0;
    const server = await serve({
      cacheTtlMs: 0,
      checks: [
        {
          name: 'slow',
          critical: true,
          timeoutMs: 30,
          check: async () => {
            calls += 1;
            await release.promise;
            return { status: 'healthy' };
          },
        },
      ],
    });

    const first = await send(`${server.url}/health`);
    expect(first.status).toBe(503);
    expect(first.json).toMatchObject({
      checks: { slow: { status: 'unhealthy', timedOut: true, error: 'timed out after 30 ms' } },
    });
    const second = await send(`${server.url}/health`);
    expect(second.status).toBe(503);
    expect(second.json).toMatchObject({
      checks: {
        slow: {
          status: 'unhealthy',
          timedOut: true,
          error: 'the previous call has not settled since it timed out; not called again until it does',
        },
      },
    });
    expect(calls).toBe(1);

    release.open();
    await release.promise;
    const third = await send(`${server.url}/health`);
    expect(calls).toBe(2);
    expect(third.status).toBe(200);
  });
});

describe('a probe that hangs up', () => {
  it('does not cancel the evaluation, and nothing is logged as an error', async () => {
    const release = gate();
    const db = gatedCheck('db', true, async () => {
      await release.promise;
      return { status: 'healthy' };
    });
    const server = await serve({ checks: [db.definition], cacheTtlMs: 0 });

    const aborted = new Promise<void>((resolve) => {
      const req = request(`${server.url}/health`, { agent: false });
      req.on('error', () => resolve());
      req.end();
      void server.waitForRouted(1).then(() => req.destroy());
    });
    await aborted;
    const waiting = send(`${server.url}/health/ready`);
    await server.waitForRouted(2);
    release.open();

    expect((await waiting).status).toBe(200);
    expect(db.calls()).toBe(1);
    // Give the abandoned response its turn to be written (it must be skipped quietly).
    await new Promise((resolve) => setImmediate(resolve));
    expect(server.logs.filter((line) => line.level === 'error')).toEqual([]);
  });
});
