import { afterEach, describe, expect, it } from 'vitest';
import type { HealthCheckDefinition, HealthPluginOptions } from './definitions.js';
import { type HealthPlugin, healthPlugin } from './plugin.js';
import { gate, send } from './test-http.js';
import { startTestServer, type TestServer, type TestServerOptions } from './test-server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Counted {
  readonly definition: HealthCheckDefinition;
  readonly calls: () => number;
}

function countedCheck(name = 'db'): Counted {
  let calls = 0;
  return {
    definition: {
      name,
      critical: true,
      check: async () => {
        calls += 1;
        return { status: 'healthy' };
      },
    },
    calls: () => calls,
  };
}

async function serve(
  options: Partial<HealthPluginOptions> & { checks: HealthPluginOptions['checks'] },
  serverOptions?: TestServerOptions,
): Promise<{ server: TestServer; plugin: HealthPlugin }> {
  const plugin = healthPlugin({ cacheTtlMs: 0, ...options });
  const server = await startTestServer(plugin, serverOptions);
  servers.push(server);
  return { server, plugin };
}

async function expectNotServing(server: TestServer, reason: 'starting' | 'shutting_down'): Promise<void> {
  const health = await send(`${server.url}/health`);
  expect(health.status).toBe(503);
  expect(health.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(health.headers['cache-control']).toBe('no-store');
  expect(health.json).toEqual({
    status: 'unhealthy',
    reason,
    timestamp: expect.any(String),
    uptime: expect.any(Number),
    version: '1.2.3',
  });
  const ready = await send(`${server.url}/health/ready`);
  expect(ready.status).toBe(503);
  expect(ready.json).toEqual({ status: 'unhealthy', reason });
  const head = await send(`${server.url}/health/ready`, { method: 'HEAD' });
  expect(head.status).toBe(503);
  expect(head.text).toBe('');
  const live = await send(`${server.url}/health/live`);
  expect(live.status).toBe(200);
  expect(live.json).toEqual({ status: 'alive' });
}

describe('starting', () => {
  it('answers 503 "starting" before the server is ready, without running a check', async () => {
    const db = countedCheck();
    const { server } = await serve({ checks: [db.definition] }, { ready: false });
    await expectNotServing(server, 'starting');
    expect(db.calls()).toBe(0);

    server.lifecycle.advance('ready');
    expect((await send(`${server.url}/health/ready`)).status).toBe(200);
    expect(db.calls()).toBe(1);
  });

  it('waits for readyWhen as well as for the server', async () => {
    const warmUp = gate();
    const db = countedCheck();
    const { server } = await serve({ checks: [db.definition], readyWhen: warmUp.promise });
    await expectNotServing(server, 'starting');
    expect(db.calls()).toBe(0);

    warmUp.open();
    await warmUp.promise;
    expect((await send(`${server.url}/health/ready`)).status).toBe(200);
  });

  it('readyWhen resolved before the server listened: ready once it listens', async () => {
    const { server } = await serve({ checks: [], readyWhen: Promise.resolve('warm') }, { ready: false });
    await expectNotServing(server, 'starting');
    server.lifecycle.advance('ready');
    expect((await send(`${server.url}/health/ready`)).json).toEqual({ status: 'healthy', checks: {} });
  });

  it('markReady() opens readiness without waiting for readyWhen', async () => {
    const { server, plugin } = await serve({ checks: [], readyWhen: new Promise(() => {}) });
    await expectNotServing(server, 'starting');
    plugin.markReady();
    expect((await send(`${server.url}/health`)).status).toBe(200);
  });

  it('markReady() does not make a server ready that is not listening yet', async () => {
    const { server, plugin } = await serve({ checks: [] }, { ready: false });
    plugin.markReady();
    await expectNotServing(server, 'starting');
  });

  it('a rejected readyWhen keeps it "starting", logs once without a stack, and markReady() recovers', async () => {
    const { server, plugin } = await serve({
      checks: [],
      readyWhen: Promise.reject(new Error('cache warm-up failed')),
    });
    await expectNotServing(server, 'starting');
    const errors = server.logs.filter((line) => line.level === 'error');
    expect(errors).toEqual([
      {
        level: 'error',
        message:
          'readyWhen rejected (cache warm-up failed); readiness stays "starting" until markReady() is called',
      },
    ]);
    plugin.markReady();
    expect((await send(`${server.url}/health/ready`)).status).toBe(200);
  });
});

describe('shutting down', () => {
  it('answers 503 "shutting_down" as soon as draining starts, without running a check; live stays 200', async () => {
    const db = countedCheck();
    const { server } = await serve({ checks: [db.definition] });
    expect((await send(`${server.url}/health/ready`)).status).toBe(200);
    expect(db.calls()).toBe(1);

    server.lifecycle.advance('draining');
    await expectNotServing(server, 'shutting_down');
    expect(db.calls()).toBe(1);

    server.lifecycle.advance('closed');
    await expectNotServing(server, 'shutting_down');
    expect(db.calls()).toBe(1);
  });

  it('does not serve a cached healthy result once draining started', async () => {
    const { server } = await serve({ checks: [countedCheck().definition], cacheTtlMs: 60_000 });
    expect((await send(`${server.url}/health/ready`)).status).toBe(200);
    server.lifecycle.advance('draining');
    expect((await send(`${server.url}/health/ready`)).json).toEqual({
      status: 'unhealthy',
      reason: 'shutting_down',
    });
  });

  it('a probe waiting for its checks when draining begins is answered "shutting_down" at once', async () => {
    const release = gate<{ status: 'healthy' }>();
    let signal: AbortSignal | undefined;
    const { server } = await serve({
      checks: [
        {
          name: 'slow',
          critical: true,
          timeoutMs: 60_000,
          check: (context) => {
            signal = context.signal;
            return release.promise;
          },
        },
      ],
    });
    const pending = send(`${server.url}/health/ready`);
    await server.waitForRouted(1);
    server.lifecycle.advance('draining');
    // Answered while the check is still running (it is only released afterwards).
    const answer = await pending;
    expect(answer.status).toBe(503);
    expect(answer.json).toEqual({ status: 'unhealthy', reason: 'shutting_down' });
    // Draining does not cancel the check; closing does.
    expect(signal?.aborted).toBe(false);
    release.open({ status: 'healthy' });
  });

  it('closing abandons running checks: their signal is aborted and waiting probes are answered', async () => {
    let signal: AbortSignal | undefined;
    const { server } = await serve({
      checks: [
        {
          name: 'hangs',
          critical: true,
          timeoutMs: 60_000,
          check: (context) => {
            signal = context.signal;
            return new Promise(() => {});
          },
        },
      ],
    });
    const pending = send(`${server.url}/health`);
    await server.waitForRouted(1);
    server.lifecycle.advance('draining');
    server.lifecycle.advance('closed');
    const answer = await pending;
    expect(answer.status).toBe(503);
    expect(answer.json).toMatchObject({ status: 'unhealthy', reason: 'shutting_down' });
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as DOMException | undefined)?.name).toBe('AbortError');
  });
});

describe('logging', () => {
  it('logs when the aggregated status changes, not on every probe', async () => {
    let status: 'healthy' | 'unhealthy' = 'unhealthy';
    const { server } = await serve({
      checks: [{ name: 'db', critical: true, check: async () => ({ status }) }],
    });
    await send(`${server.url}/health`);
    await send(`${server.url}/health/ready`);
    status = 'healthy';
    await send(`${server.url}/health`);
    await send(`${server.url}/health`);
    expect(server.logs).toEqual([
      { level: 'warn', message: 'health is unhealthy', fields: { failing: ['db'] } },
      { level: 'info', message: 'health is healthy again' },
    ]);
  });

  it('a logger that throws breaks nothing', async () => {
    const throwing = () => {
      throw new Error('stderr is gone');
    };
    const logger = { debug: throwing, info: throwing, warn: throwing, error: throwing, child: () => logger };
    const plugin = healthPlugin({
      cacheTtlMs: 0,
      readyWhen: Promise.reject(new Error('warm-up failed')),
      checks: [{ name: 'db', critical: true, check: async () => ({ status: 'unhealthy' }) }],
    });
    const server = await startTestServer(plugin, { logger });
    servers.push(server);
    plugin.markReady();
    expect((await send(`${server.url}/health/ready`)).status).toBe(503);
    expect((await send(`${server.url}/health/ready`)).status).toBe(503);
  });
});
