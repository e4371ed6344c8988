// Faults: health checks that hang, throw, reject with non-Errors, resolve garbage or resolve too late;
// tools that throw, never resolve, or return a huge result. The server keeps answering, and the process
// ends by itself after close().
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, exitWithin, startFixture, waitFor } from './child.js';
import { connectClient, textOf } from './mcp.js';

afterEach(cleanUp);

const CHECK_TIMEOUT_MS = 300;

interface HealthBody {
  status: string;
  checks: Record<string, { status: string; durationMs?: number; timedOut?: boolean; error?: string }>;
}

async function probe(url: URL): Promise<{ status: number; body: HealthBody; elapsedMs: number }> {
  const started = performance.now();
  const res = await fetch(url);
  const body = (await res.json()) as HealthBody;
  return { status: res.status, body, elapsedMs: performance.now() - started };
}

describe('faulty health checks', () => {
  it('answer every probe within the check timeout + 50 ms, as unhealthy, and let the process exit after close()', async () => {
    const server = await startFixture({ checks: 'faulty', checkTimeoutMs: CHECK_TIMEOUT_MS, cacheTtlMs: 0 });
    const health = new URL('/health', server.url);
    const ready = new URL('/health/ready', server.url);

    const probes = [];
    for (let i = 0; i < 3; i++) probes.push(await probe(health), await probe(ready));
    probes.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => probe(i % 2 ? health : ready)))));

    for (const { status, body, elapsedMs } of probes) {
      expect(status).toBe(503);
      expect(body.status).toBe('unhealthy');
      for (const name of [
        'hangs',
        'throws',
        'rejects-string',
        'rejects-undefined',
        'rejects-object',
        'garbage-null',
      ]) {
        expect(body.checks[name]?.status, name).toBe('unhealthy');
      }
      for (const name of ['garbage-status', 'garbage-number', 'late', 'critical-hangs']) {
        expect(body.checks[name]?.status, name).toBe('unhealthy');
      }
      // Details that cannot be serialised make the result invalid: unhealthy, and the body still JSON.
      expect(body.checks['garbage-cyclic']?.status).toBe('unhealthy');
      // The one timing assertion of the suite, because the issue requires this bound explicitly: a probe
      // answers within the check timeout + 50 ms. The server's own measure of each check gets 100 ms of
      // event-loop lag on top (a timer on a busy 2-core CI runner fires late; the checks that would break
      // the bound — one that hangs, one that resolves at 3× the timeout — are far beyond it); the
      // client's round trip, which adds HTTP and scheduling, gets 500 ms.
      for (const check of Object.values(body.checks)) {
        if (check.durationMs !== undefined)
          expect(check.durationMs).toBeLessThanOrEqual(CHECK_TIMEOUT_MS + 50 + 100);
      }
      expect(elapsedMs).toBeLessThanOrEqual(CHECK_TIMEOUT_MS + 50 + 500);
    }
    const full = probes.find((p) => p.body.checks.hangs?.durationMs !== undefined);
    expect(full?.body.checks.hangs?.timedOut).toBe(true);
    expect(full?.body.checks.late?.timedOut).toBe(true);

    const live = await fetch(new URL('/health/live', server.url));
    expect(live.status).toBe(200);

    // After close(), no timer or pending promise of the checks keeps the process alive.
    server.child.stdin?.end('close\n');
    await waitFor(server, /^CLOSED$/m);
    const exit = await exitWithin(server, 5_000);
    expect(exit.code).toBe(0);
    expect(server.stderr()).not.toMatch(/UNHANDLED_REJECTION|UNCAUGHT_EXCEPTION|CLOSE_FAILED/);
  });
});

describe('faulty tools', () => {
  it('a tool that throws, one that never resolves (cancelled by its client) and one with a huge result leave the server serving others', async () => {
    const server = await startFixture({ listen: { sessions: true } });
    const bystander = await connectClient(server.url);
    const legacy = await connectClient(server.url, 'legacy');

    const thrown = await bystander.callTool({ name: 'boom', arguments: {} });
    expect(thrown.isError).toBe(true);
    expect(textOf(thrown)).toMatch(/boom/);

    for (const client of [bystander, legacy]) {
      const controller = new AbortController();
      const hung = client.callTool({ name: 'hang', arguments: {} }, { signal: controller.signal });
      const during = await client.callTool({ name: 'echo', arguments: { text: 'meanwhile' } });
      expect(textOf(during)).toBe('meanwhile');
      controller.abort(new Error('the user gave up'));
      await expect(hung).rejects.toThrow();
    }

    const huge = await legacy.callTool({ name: 'huge', arguments: {} });
    expect(textOf(huge)?.length).toBe(8 * 1024 * 1024);
    const [a, b] = await Promise.all([
      bystander.callTool({ name: 'huge', arguments: {} }),
      legacy.callTool({ name: 'echo', arguments: { text: 'beside a huge one' } }),
    ]);
    expect(textOf(a)?.length).toBe(8 * 1024 * 1024);
    expect(textOf(b)).toBe('beside a huge one');

    const fresh = await connectClient(server.url);
    expect(textOf(await fresh.callTool({ name: 'echo', arguments: { text: 'new client' } }))).toBe(
      'new client',
    );
    expect((await fetch(new URL('/health/live', server.url))).status).toBe(200);
    await Promise.all([bystander.close(), legacy.close(), fresh.close()]);

    // Nothing of the cancelled calls keeps the process alive or went unhandled.
    server.child.stdin?.end('close\n');
    await waitFor(server, /^CLOSED$/m);
    expect((await exitWithin(server, 5_000)).code).toBe(0);
    expect(server.stderr()).not.toMatch(/UNHANDLED_REJECTION|UNCAUGHT_EXCEPTION|CLOSE_FAILED/);
  });
});
