// The health endpoints of the running app, driven by real failures: an upstream the test stops, a data
// directory that stops being writable, and SIGTERM.
import { chmod, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HEALTH_PATHS } from '../settings.js';
import {
  cleanUp,
  probe,
  probeUntil,
  removeLater,
  startHttpApp,
  startUpstream,
  stopUpstreams,
  tempDir,
} from './test-app.js';

const TEST_TIMEOUT_MS = 30_000;

afterEach(async () => {
  await cleanUp();
  await stopUpstreams();
});

interface HealthBody {
  status: string;
  reason?: string;
  checks?: Record<string, { status: string; critical: boolean; error?: string }>;
}
const body = (answer: { body: unknown }) => answer.body as HealthBody;

describe('health', () => {
  it(
    'an upstream outage degrades /health (200) and keeps the replica ready',
    async () => {
      const upstream = await startUpstream();
      const app = await startHttpApp({ args: ['--base-url', upstream.url, '--timeout', '1000'] });

      const healthy = await probeUntil(app.origin, HEALTH_PATHS.health, (a) => body(a).status === 'healthy');
      expect(healthy.status).toBe(200);
      expect(body(healthy).checks).toMatchObject({
        'data-dir': { status: 'healthy', critical: true },
        upstream: { status: 'healthy', critical: false },
      });

      await upstream.stop();
      const degraded = await probeUntil(
        app.origin,
        HEALTH_PATHS.health,
        (a) => body(a).status === 'degraded',
      );
      expect(degraded.status).toBe(200);
      expect(body(degraded).checks?.upstream).toMatchObject({ status: 'unhealthy', critical: false });
      expect(body(degraded).checks?.upstream?.error).toContain('ECONNREFUSED');
      const ready = await probe(app.origin, HEALTH_PATHS.ready);
      expect(ready).toMatchObject({ status: 200, body: { status: 'degraded' } });
      expect((await probe(app.origin, HEALTH_PATHS.live)).status).toBe(200);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a data directory that cannot be written makes the replica unready (503) but alive',
    async () => {
      const upstream = await startUpstream();
      const dataDir = await tempDir();
      const app = await startHttpApp({ dataDir, args: ['--base-url', upstream.url] });
      expect((await probeUntil(app.origin, HEALTH_PATHS.ready, (a) => a.status === 200)).status).toBe(200);

      await makeUnwritable(dataDir);
      const ready = await probeUntil(app.origin, HEALTH_PATHS.ready, (a) => a.status === 503);
      expect(ready).toMatchObject({
        status: 503,
        body: { status: 'unhealthy', checks: { 'data-dir': { status: 'unhealthy', critical: true } } },
      });
      expect((await probe(app.origin, HEALTH_PATHS.health)).status).toBe(503);
      expect((await probe(app.origin, HEALTH_PATHS.live)).status).toBe(200);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'on SIGTERM readiness fails at once while liveness holds, then the process exits with 0',
    async () => {
      const upstream = await startUpstream();
      const app = await startHttpApp({ args: ['--base-url', upstream.url, '--drain-delay-ms', '3000'] });
      expect((await probeUntil(app.origin, HEALTH_PATHS.ready, (a) => a.status === 200)).status).toBe(200);

      app.child.kill('SIGTERM');
      // The drain delay keeps the listener open, so probes still get answers while the pod is removed.
      const ready = await probeUntil(app.origin, HEALTH_PATHS.ready, (a) => a.status === 503, 2_000);
      expect(ready).toMatchObject({ status: 503, body: { status: 'unhealthy', reason: 'shutting_down' } });
      expect(await probe(app.origin, HEALTH_PATHS.live)).toMatchObject({
        status: 200,
        body: { status: 'alive' },
      });

      expect(await app.exited).toEqual({ code: 0, signal: null });
      // Core's SIGTERM handling ran the app's close hook before exiting.
      expect(app.stderr()).toMatch(
        /INFO {2}\[pier-notes\] notes flushed\n(.*\n)*.*INFO {2}\[pier-notes\] closed\n/,
      );
    },
    TEST_TIMEOUT_MS,
  );
});

/**
 * Makes `dir` unwritable for the app. `chmod 0o500` is enough for an ordinary user, but not for root
 * (or any process with CAP_DAC_OVERRIDE), which writes through permission bits — and tests often run as
 * root in containers. So try a write after the chmod; if it succeeds, put a plain file where the
 * directory was instead: creating anything "inside" it then fails with ENOTDIR, whoever you are.
 */
async function makeUnwritable(dir: string): Promise<void> {
  await chmod(dir, 0o500);
  const probeFile = join(dir, '.can-i-still-write');
  try {
    await writeFile(probeFile, '');
  } catch {
    return; // permission bits are honoured
  }
  await rm(probeFile, { force: true });
  await chmod(dir, 0o700);
  await rename(dir, `${dir}.moved`);
  removeLater(`${dir}.moved`);
  await writeFile(dir, 'not a directory');
}
