import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { healthChecks } from './health.js';

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
  servers = [];
});

/** A local upstream answering `status`, or never answering when `status` is `'hang'`. */
async function upstream(status: number | 'hang'): Promise<string> {
  const server = createServer((_req, res) => {
    if (status !== 'hang') res.writeHead(status).end('body');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://user:pass@127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
}

const writable = { dataDir: '/data', probeWritable: async () => undefined };

function upstreamCheck(baseUrl: string, timeoutMs = 2_000) {
  const check = healthChecks({ store: writable, baseUrl, timeoutMs }).find((c) => c.name === 'upstream');
  if (check === undefined) throw new Error('no upstream check');
  return () => check.check({ signal: new AbortController().signal });
}

describe('healthChecks', () => {
  it('marks the data directory critical and the upstream not', async () => {
    const denied = Object.assign(new Error("EACCES: permission denied, open '/data/.probe-1'"), {
      code: 'EACCES',
    });
    const failing = { dataDir: '/data', probeWritable: async () => Promise.reject(denied) };
    const logged: unknown[] = [];
    const [dataDir, up] = healthChecks({
      store: failing,
      baseUrl: 'http://127.0.0.1:1/',
      timeoutMs: 100,
      logFailure: (message, fields) => logged.push({ message, ...fields }),
    });
    expect(dataDir).toMatchObject({ name: 'data-dir', critical: true });
    expect(up).toMatchObject({ name: 'upstream', critical: false });
    // /health is open to anyone: the code, never the path; the log keeps the whole message.
    const failure = await Promise.resolve(dataDir?.check({ signal: new AbortController().signal })).catch(
      (error: Error) => error,
    );
    expect(String(failure)).toContain('the data directory is not writable (EACCES)');
    expect(String(failure)).not.toContain('/data');
    expect(logged).toEqual([{ message: 'data directory probe failed', error: denied.message }]);
  });

  it('counts any answer below 500 as up (a 404 or 401 from an API root still proves it answers)', async () => {
    for (const status of [200, 204, 301, 401, 404]) {
      await expect(upstreamCheck(await upstream(status))()).resolves.toMatchObject({ status: 'healthy' });
    }
  });

  it('is degraded on a 5xx, and names the upstream without its credentials', async () => {
    const result = await upstreamCheck(await upstream(503))();
    expect(result).toMatchObject({ status: 'degraded' });
    expect(result.message).toMatch(/^http:\/\/127\.0\.0\.1:\d+ answered HTTP 503$/);
  });

  it('fails when nothing answers, or nothing answers in time', async () => {
    const url = await upstream(200);
    const stopped = servers.pop();
    await new Promise((resolve) => stopped?.close(resolve));
    await expect(upstreamCheck(url)()).rejects.toThrow(/did not answer: ECONNREFUSED$/);
    await expect(upstreamCheck(await upstream('hang'), 150)()).rejects.toThrow(
      /did not answer within 150 ms$/,
    );
  });
});
