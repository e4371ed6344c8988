// Memory bounds in sessionful mode: clients that open sessions and never DELETE them cannot grow the
// server without bound. The cap holds (503 + Retry-After beyond it, existing sessions keep working), RSS
// stays within a generous sanity bound, and idle sessions expire, their memory is reclaimed and new
// sessions are accepted again.
import { afterEach, describe, expect, it } from 'vitest';
import { type Child, cleanUp, startFixture } from './child.js';
import { initializeBody, LEGACY_VERSION } from './mcp.js';

afterEach(cleanUp);

const MAX_SESSIONS = 50;
const IDLE_TIMEOUT_MS = 4_000;

async function memory(server: Child): Promise<{ rss: number; heapUsed: number }> {
  const before = server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('MEM ')).length;
  server.child.stdin?.write('mem\n');
  for (let i = 0; i < 250; i++) {
    const lines = server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('MEM '));
    if (lines.length > before) return JSON.parse((lines.at(-1) as string).slice(4));
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no MEM line from the server');
}

async function initialize(url: URL): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: initializeBody(),
  });
}

async function ping(url: URL, session: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': LEGACY_VERSION,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function openSessions(url: URL, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 10) {
    const batch = await Promise.all(Array.from({ length: Math.min(10, count - i) }, () => initialize(url)));
    for (const res of batch) {
      expect(res.status).toBe(200);
      ids.push(res.headers.get('mcp-session-id') ?? '');
      await res.arrayBuffer();
    }
  }
  return ids;
}

describe('sessions past maxSessions', () => {
  it('holds the cap, answers 503 + Retry-After, keeps existing sessions, expires idle ones and accepts new ones again', async () => {
    const server = await startFixture(
      { listen: { sessions: true, maxSessions: MAX_SESSIONS, sessionIdleTimeoutMs: IDLE_TIMEOUT_MS } },
      ['--expose-gc'],
    );
    const url = server.url;
    const baseline = await memory(server);

    const ids = await openSessions(url, MAX_SESSIONS);
    expect(new Set(ids).size).toBe(MAX_SESSIONS);

    // Existing sessions keep working (pinged now, so that all of them share about the same idle start).
    for (const id of ids.slice(0, 5)) expect(await ping(url, id)).toBe(200);

    // Far past the cap, without DELETE: every new one is refused, none is created.
    let refused = 0;
    for (let round = 0; round < 15; round++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => initialize(url)));
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(res.headers.get('mcp-session-id')).toBeNull();
        expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32000);
        refused++;
      }
    }
    expect(refused).toBe(300);
    expect(await ping(url, ids[0] as string)).toBe(200);
    // The last activity of any old session: each is gone one idle timeout plus one sweep after it.
    const lastActivity = Date.now();

    // A sanity bound, generous on purpose: 50 sessions and 300 refusals must not cost 64 MB.
    const full = await memory(server);
    expect(full.rss - baseline.rss).toBeLessThan(64 * 1024 * 1024);

    // Idle sessions expire: poll with initialize (which touches no existing session) until one is
    // accepted; bounded by several idle timeouts (the sweep runs every quarter of the timeout).
    const deadline = Date.now() + IDLE_TIMEOUT_MS * 4;
    let accepted: Response | undefined;
    while (accepted === undefined && Date.now() < deadline) {
      const res = await initialize(url);
      if (res.status === 200) accepted = res;
      else await res.arrayBuffer();
      if (accepted === undefined) await new Promise((r) => setTimeout(r, 250));
    }
    expect(accepted?.status).toBe(200);
    await accepted?.arrayBuffer();
    // Wait until even the session used last is past its idle timeout and a sweep (plus a margin) ran.
    const allDue = lastActivity + IDLE_TIMEOUT_MS + IDLE_TIMEOUT_MS / 4 + 500;
    await new Promise((r) => setTimeout(r, Math.max(0, allDue - Date.now())));
    for (const id of ids) expect(await ping(url, id)).toBe(404);

    // Their memory is reclaimed and the cap is free again: a full set of new sessions is accepted.
    const drained = await memory(server);
    expect(drained.heapUsed - baseline.heapUsed).toBeLessThan(16 * 1024 * 1024);
    // (The session opened by the poll above may itself have expired meanwhile: it counts for 0 or 1.)
    const again: string[] = [];
    let refusedAgain = false;
    for (let i = 0; i <= MAX_SESSIONS && !refusedAgain; i++) {
      const res = await initialize(url);
      if (res.status === 200) again.push(res.headers.get('mcp-session-id') ?? '');
      else refusedAgain = res.status === 503;
      await res.arrayBuffer();
    }
    expect(again.length).toBeGreaterThanOrEqual(MAX_SESSIONS - 1);
    expect(again.filter((id) => ids.includes(id))).toEqual([]);
    expect(refusedAgain).toBe(true);
    expect(server.stderr()).not.toMatch(/UNHANDLED_REJECTION|UNCAUGHT_EXCEPTION/);
  });
});
