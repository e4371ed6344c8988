// The fleet: three replicas of the built app (child processes, `node dist/main.js`, TRANSPORT/PORT/HOST/
// REDIS_URL from the environment) behind a real HAProxy running deploy/haproxy.cfg (round-robin, no
// affinity), sharing a real redis-server. Proves per-request balancing first, then: SDK clients through the
// balancer, notes shared, change events crossing replicas exactly once, SIGKILL of a stream's replica,
// SIGTERM under load with no failed request, a bounded soak, and no per-session keys left in Redis.
// Negative controls: the same cross-replica scenarios without REDIS_URL fail (notes differ, events stay).

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanUp, probe, probeUntil } from './test-app.js';
import { structured } from './test-clients.js';
import {
  callTool,
  ensureInstalled,
  type LoadBalancer,
  listen,
  type RedisProcess,
  type Replica,
  replicas,
  sleep,
  startHaproxy,
  stopChild,
  until,
  type Watcher,
  watcher,
} from './test-fleet.js';

const INDEX = 'notes://index';
const SCENARIO_MS = 90_000;
/** After the last expected event, how long to keep listening for a duplicate. */
const QUIET_MS = 400;
// Generous bounds against hangs on a loaded machine (never timing assertions).
vi.setConfig({ testTimeout: SCENARIO_MS, hookTimeout: 120_000 });

let redis: RedisProcess;
beforeAll(async () => {
  ensureInstalled();
  const { startRedis } = await import('./test-fleet.js');
  redis = await startRedis();
}, 240_000);
afterAll(async () => {
  await redis?.stop();
  await cleanUp();
});

const watchers: Watcher[] = [];
async function opened(url: string, era: 'modern' | 'legacy' = 'modern'): Promise<Watcher> {
  const w = await watcher(url, era);
  watchers.push(w);
  return w;
}
async function closeWatchers(): Promise<void> {
  await Promise.allSettled(watchers.splice(0).map((w) => w.client.close()));
}

/** The ids of the notes a replica (or the balancer) lists. */
async function noteIds(url: string): Promise<string[]> {
  const answer = await callTool(url, 'list_notes');
  expect(answer.error).toBeUndefined();
  return structured<{ notes: { id: string }[] }>(answer.result).notes.map((note) => note.id);
}

async function addNote(url: string, title: string): Promise<{ id: string; replica: string | null }> {
  const answer = await callTool(url, 'add_note', { title, body: `${title} body` });
  expect(answer.error).toBeUndefined();
  const { note } = structured<{ note: { id: string } }>(answer.result);
  return { id: note.id, replica: answer.replica };
}

/**
 * delete_note confirmed across replicas: round 1 (the question, input_required with signed requestState)
 * on `first`, round 2 (the answer) on `second`. Resolves with round 2's answer.
 */
async function confirmAcross(first: Replica, second: Replica) {
  const { id } = await addNote(first.url, 'to confirm');
  const elicitation = { capabilities: { elicitation: {} } };
  const round1 = await callTool(first.url, 'delete_note', { id }, elicitation);
  expect(round1.result).toMatchObject({ resultType: 'input_required' });
  const round2 = await callTool(
    second.url,
    'delete_note',
    { id },
    {
      ...elicitation,
      params: {
        inputResponses: { confirm_delete: { action: 'accept', content: { confirm: true } } },
        requestState: round1.result?.requestState,
      },
    },
  );
  return { id, round2 };
}

async function startFleet(env: NodeJS.ProcessEnv): Promise<Replica[]> {
  const fleet = await replicas(3, env);
  await Promise.all(fleet.map((replica) => replica.start()));
  return fleet;
}
async function stopFleet(fleet: readonly Replica[]): Promise<void> {
  // SIGINT skips the drain delay; each replica is stopped by its own PID.
  await Promise.all(fleet.map((replica) => replica.process && stopChild(replica.process.child, 'SIGINT')));
}

describe('3 replicas with REDIS_URL behind HAProxy (deploy/haproxy.cfg)', () => {
  let fleet: Replica[] = [];
  let lb: LoadBalancer;
  beforeAll(async () => {
    // A short drain delay: HAProxy's check (every 500 ms, 2 failures) takes a draining replica out inside it.
    // SESSIONS=true: 2025-era clients get sessions, served by any replica through the session relay.
    fleet = await startFleet({ REDIS_URL: redis.url, DRAIN_DELAY_MS: '3000', SESSIONS: 'true' });
    lb = await startHaproxy(fleet);
  });
  afterAll(async () => {
    await closeWatchers();
    await lb?.stop();
    await stopFleet(fleet);
  });

  it('balances every request on its own: 30 calls over kept-alive connections reach ≥ 2 replicas, 0 errors', async () => {
    const seen = new Map<string, number>();
    for (let i = 0; i < 30; i++) {
      const answer = await callTool(lb.url, 'list_notes');
      expect(answer.status).toBe(200);
      expect(answer.error).toBeUndefined();
      seen.set(answer.replica as string, (seen.get(answer.replica as string) ?? 0) + 1);
    }
    expect(seen.size).toBeGreaterThanOrEqual(2);
  });

  it('serves SDK clients through the balancer: v2 in 2026-07-28 mode and v1 (2025, a session on any replica)', async () => {
    const modern = await opened(lb.url);
    expect(modern.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const v1 = new V1Client({ name: 'fleet-v1', version: '1.0.0' });
    const v1Transport = new V1HttpTransport(new URL(lb.url));
    await v1.connect(v1Transport);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push(
          structured<{ note: { id: string } }>(
            await modern.client.callTool({ name: 'add_note', arguments: { title: `sdk ${i}`, body: 'x' } }),
          ).note.id,
        );
      }
      // Whichever replica each v1 request lands on, it lists the notes the v2 client added elsewhere.
      for (let i = 0; i < 6; i++) {
        const listed = structured<{ notes: { id: string }[] }>(
          await v1.callTool({ name: 'list_notes', arguments: {} }),
        );
        expect(listed.notes.map((note) => note.id)).toEqual(expect.arrayContaining(ids));
      }
    } finally {
      // SESSIONS=true gives v1 a session: end it (DELETE, through any replica) so that no record is left.
      await v1Transport.terminateSession();
      await v1.close();
    }
  });

  it('a note added through one replica is listed, read and deleted through the others', async () => {
    const [r1, r2, r3] = fleet as [Replica, Replica, Replica];
    const { id } = await addNote(r1.url, 'shared');
    expect(await noteIds(r2.url)).toContain(id);
    expect(await noteIds(r3.url)).toContain(id);
    const deleted = await callTool(r3.url, 'delete_note', { id });
    expect(deleted.error).toBeUndefined();
    expect(await noteIds(r1.url)).not.toContain(id);
    expect(await noteIds(r2.url)).not.toContain(id);
  });

  it('a delete confirmed on another replica than the one that asked completes (one input-required key for the fleet)', async () => {
    const [r1, r2] = fleet as [Replica, Replica];
    const { id, round2 } = await confirmAcross(r1, r2);
    expect(round2.error).toBeUndefined();
    expect(round2.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: `deleted note ${id}` }],
    });
  });

  it('a 2025 session (SDK v2, legacy) through the balancer: every request on any replica, a delete confirmed by elicitation, then DELETE ends it everywhere', async () => {
    const seen = new Set<string>();
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const replica = response.headers.get('x-pier-replica');
      if (replica !== null) seen.add(replica);
      return response;
    };
    const client = new Client(
      { name: 'fleet-session', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'legacy' } },
    );
    let asked = 0;
    client.setRequestHandler('elicitation/create', async () => {
      asked++;
      return { action: 'accept', content: { confirm: true } };
    });
    const transport = new StreamableHTTPClientTransport(new URL(lb.url), { fetch: recordingFetch });
    await client.connect(transport);
    try {
      const sessionId = transport.sessionId as string;
      expect(sessionId).toEqual(expect.any(String));
      const { note } = structured<{ note: { id: string } }>(
        await client.callTool({ name: 'add_note', arguments: { title: 'in a session', body: 'x' } }),
      );
      for (let i = 0; i < 6; i++) await client.callTool({ name: 'list_notes', arguments: {} });
      // The question goes out on the owner's stream; the answer is POSTed to whichever replica HAProxy picks.
      const deleted = await client.callTool({ name: 'delete_note', arguments: { id: note.id } });
      expect(deleted.isError).toBeFalsy();
      expect(asked).toBe(1);
      expect(await noteIds(lb.url)).not.toContain(note.id);
      expect(seen.size).toBeGreaterThanOrEqual(2);
      await transport.terminateSession();
      // Gone on every replica, whichever one the DELETE reached.
      for (const replica of fleet) {
        const response = await fetch(replica.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sessionId,
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        });
        expect(response.status).toBe(404);
      }
    } finally {
      await client.close();
    }
  });

  it('a listen stream on every replica hears a change made on another exactly once (one copy per stream)', async () => {
    const [r1, r2, r3] = fleet as [Replica, Replica, Replica];
    const streams = await Promise.all([r1, r2, r3].map((replica) => opened(replica.url)));
    await Promise.all(streams.map(listen));
    await addNote(r2.url, 'cross');
    await until(() => streams.every((w) => w.updates.length >= 1 && w.listChanged() >= 1), 'the event');
    await sleep(QUIET_MS);
    expect(streams.map((w) => [w.updates, w.listChanged()])).toEqual([
      [[INDEX], 1],
      [[INDEX], 1],
      [[INDEX], 1],
    ]);
    await closeWatchers();
  });

  it('soak: 1,000 events × 30 listen streams, every event once per stream; then only the persistent keys remain', async () => {
    const STREAMS = 30;
    const EVENTS = 1_000;
    const streams = await Promise.all(
      Array.from({ length: STREAMS }, (_, i) => opened((fleet[i % fleet.length] as Replica).url)),
    );
    // Updates only (each add_note also changes the list; one notification per event is enough to count).
    await Promise.all(streams.map((w) => w.client.listen({ resourceSubscriptions: [INDEX] })));
    // 1,000 add_note calls through the balancer, 10 at a time: each raises one notes://index update.
    let next = 0;
    const failures: unknown[] = [];
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < EVENTS) {
          next++;
          const answer = await callTool(lb.url, 'add_note', { title: `soak ${next}`, body: '' });
          if (answer.status !== 200 || answer.error !== undefined) failures.push(answer);
        }
      }),
    );
    expect(failures).toEqual([]);
    await until(
      () => streams.every((w) => w.updates.length >= EVENTS),
      'every event on every stream',
      30_000,
    );
    await sleep(QUIET_MS);
    expect(streams.map((w) => w.updates.length)).toEqual(Array(STREAMS).fill(EVENTS));
    expect(streams.map((w) => w.listChanged())).toEqual(Array(STREAMS).fill(0));
    await closeWatchers();

    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const keys: string[] = [];
      for await (const batch of client.scanIterator({ MATCH: '*', COUNT: 1000 })) keys.push(...batch);
      // What persists by design: the notes (data), the change-event stream (capped) and the shared
      // input-required key (and its copy, see the README). Nothing per session or per stream: 2026-07-28 requests keep nothing in Redis.
      expect(keys.sort()).toEqual([
        'pier-notes:events',
        'pier-notes:notes',
        'pier-notes:order',
        'pier-notes:request-state-key',
        'pier-notes:request-state-key:copy',
        'pier-notes:seq',
      ]);
      expect(await client.xLen('pier-notes:events')).toBeLessThanOrEqual(11_000);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('SIGKILL of the replica holding a listen stream: the stream ends, the client re-listens through the balancer and hears later changes', async () => {
    const w = await opened(lb.url);
    const first = await listen(w);
    const holder = fleet.find((replica) => replica.name === w.listenReplica()) as Replica;
    expect(holder, `the listen request was answered by ${w.listenReplica()}`).toBeDefined();
    await stopChild(holder.process?.child as NonNullable<Replica['process']>['child'], 'SIGKILL');
    const closed = await Promise.race([first.closed, sleep(5_000).then(() => 'still open')]);
    expect(closed).toBe('remote');
    await listen(w);
    expect(w.listenReplica()).not.toBe(holder.name);
    const before = w.updates.length;
    await addNote(lb.url, 'after the kill');
    await until(() => w.updates.length > before, 'the change after re-listening');
    await closeWatchers();
    // Back in the pool for the next scenario.
    await holder.start();
    for (let i = 0; i < 100 && (await lb.up()).length < 3; i++) await sleep(100);
    expect((await lb.up()).sort()).toEqual(['r1', 'r2', 'r3']);
  });

  it('SIGTERM of one replica under load (200 calls over ~5 s, ≤ 10 at a time): 0 failed requests', async () => {
    const target = fleet[1] as Replica;
    const child = target.process?.child as NonNullable<Replica['process']>['child'];
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const failures: unknown[] = [];
    const served = new Map<string, number>();
    let inFlight = 0;
    const calls: Promise<void>[] = [];
    let readiness: number | undefined;
    for (let i = 0; i < 200; i++) {
      if (i === 50) {
        process.kill(child.pid as number, 'SIGTERM');
        // Readiness fails at once while MCP requests are still served for the drain delay.
        readiness = (await probeUntil(target.origin, '/health/ready', ({ status }) => status === 503, 1_000))
          .status;
      }
      while (inFlight >= 10) await sleep(5);
      inFlight++;
      calls.push(
        callTool(lb.url, 'list_notes')
          .then((answer) => {
            if (answer.status !== 200 || answer.error !== undefined) failures.push(answer);
            else served.set(answer.replica as string, (served.get(answer.replica as string) ?? 0) + 1);
          })
          .catch((error: unknown) => {
            failures.push(String(error));
          })
          .finally(() => {
            inFlight--;
          }),
      );
      await sleep(25);
    }
    await Promise.all(calls);
    expect(readiness).toBe(503);
    expect(failures).toEqual([]);
    expect([...served.values()].reduce((a, b) => a + b, 0)).toBe(200);
    expect(await exited).toBe(0);
  });

  it('Redis killed and restarted: replicas stay ready (degraded) and live, answer at once, and events cross again', async () => {
    const running = fleet.filter((replica) => replica.process?.child.exitCode === null);
    expect(running.length).toBeGreaterThanOrEqual(2);
    const redisCheck = async (replica: Replica) => {
      const answer = await probe(replica.origin, '/health/ready');
      const checks = (answer.body as { checks?: Record<string, { status: string }> }).checks;
      return { status: answer.status, redis: checks?.redis?.status };
    };
    await redis.kill();
    try {
      for (const replica of running) {
        // plugin-health reuses a result for 1 s: poll (bounded) until the outage shows.
        let seen = await redisCheck(replica);
        for (let i = 0; i < 50 && seen.redis === 'healthy'; i++) {
          await sleep(100);
          seen = await redisCheck(replica);
        }
        expect(seen).toEqual({ status: 200, redis: 'unhealthy' });
        expect((await probe(replica.origin, '/health/live')).status).toBe(200);
        // A tool that needs no Redis answers; one that reads the notes fails at once with a tool error.
        expect((await callTool(replica.url, 'show_config')).error).toBeUndefined();
        const listed = await callTool(replica.url, 'list_notes');
        expect(listed.result?.isError ?? listed.error !== undefined).toBe(true);
      }
    } finally {
      await redis.restart();
    }
    const [a, b] = running as [Replica, Replica];
    for (const replica of running) {
      let seen = await redisCheck(replica);
      for (let i = 0; i < 100 && seen.redis !== 'healthy'; i++) {
        await sleep(100);
        seen = await redisCheck(replica);
      }
      expect(seen.redis).toBe('healthy');
    }
    const w = await opened(a.url);
    await listen(w);
    await addNote(b.url, 'after the outage');
    await until(() => w.updates.length >= 1, 'the event after the outage', 10_000);
    await sleep(QUIET_MS);
    expect(w.updates).toEqual([INDEX]);
    await closeWatchers();
  });
});

describe('negative controls: 3 replicas without REDIS_URL', () => {
  let fleet: Replica[] = [];
  beforeAll(async () => {
    fleet = await startFleet({});
  });
  afterAll(async () => {
    await closeWatchers();
    await stopFleet(fleet);
  });

  it('notes differ: a note added through one replica is not listed by the others', async () => {
    const [r1, r2, r3] = fleet as [Replica, Replica, Replica];
    const { id } = await addNote(r1.url, 'alone');
    expect(await noteIds(r1.url)).toContain(id);
    expect(await noteIds(r2.url)).not.toContain(id);
    expect(await noteIds(r3.url)).not.toContain(id);
  });

  it('a delete confirmed on another replica is refused: each process signs with its own key', async () => {
    const [r1, r2] = fleet as [Replica, Replica];
    const { round2 } = await confirmAcross(r1, r2);
    expect(round2.error).toMatchObject({ code: -32602 });
  });

  it('events do not cross: only the stream on the replica that made the change hears it', async () => {
    const [r1, r2, r3] = fleet as [Replica, Replica, Replica];
    const streams = await Promise.all([r1, r2, r3].map((replica) => opened(replica.url)));
    await Promise.all(streams.map(listen));
    await addNote(r2.url, 'local only');
    await until(() => (streams[1]?.updates.length ?? 0) >= 1, 'the local event');
    await sleep(QUIET_MS + 300);
    expect(streams.map((w) => w.updates)).toEqual([[], [INDEX], []]);
  });
});

describe('REDIS_URL is a secret: its password never shows', () => {
  const password = `canary-${process.pid}-redis-password`;
  let guarded: RedisProcess | undefined;
  afterAll(async () => {
    await guarded?.stop();
  });

  it('not in show_config, the logs (at debug level) or stdout of a replica using it', async () => {
    const { startRedis } = await import('./test-fleet.js');
    guarded = await startRedis({ password });
    const url = guarded.url.replace('redis://', `redis://:${password}@`);
    const [replica] = await replicas(1, { REDIS_URL: url, LOG_LEVEL: 'debug' });
    await replica?.start();
    try {
      const shown = await callTool(replica?.url as string, 'show_config');
      expect(shown.error).toBeUndefined();
      const text = JSON.stringify(shown.result);
      expect(text).toContain('"source":"REDIS_URL"');
      expect(text).not.toContain(password);
      await addNote(replica?.url as string, 'works with the password');
    } finally {
      await stopChild(replica?.process?.child as NonNullable<Replica['process']>['child'], 'SIGINT');
    }
    expect(replica?.process?.stderr()).toContain('DEBUG');
    expect(`${replica?.process?.stderr()}${replica?.process?.stdout()}`).not.toContain(password);
  });

  it('not in the error when the password is wrong: the app stops with 1 after the connect bound', async () => {
    const wrong = `${password}-wrong`;
    const url = (guarded as RedisProcess).url.replace('redis://', `redis://:${wrong}@`);
    const [replica] = await replicas(1, { REDIS_URL: url });
    const error = await replica?.start().catch((caught: unknown) => caught as Error);
    expect(String(error)).toContain('exited (1)');
    expect(String(error)).toContain('cannot use Redis: Redis (REDIS_URL) did not answer within 10000 ms');
    expect(String(error)).not.toContain(wrong);
  });
});
