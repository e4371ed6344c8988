// Three Pier replicas behind a real HAProxy (round-robin, and sticky on Mcp-Session-Id), coordinated
// through a real redis-server: change events cross replicas exactly once, input-required rounds finish on
// another replica. Each cross-replica scenario has a negative control that must fail without the shared part.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureInstalled,
  type LoadBalancer,
  type RedisProcess,
  startHaproxy,
  startRedis,
} from './test-infra.js';
import {
  modernRequest,
  type Replica,
  sleep,
  startReplicas,
  stopReplicas,
  until,
  type Watcher,
  watcher,
} from './test-replicas.js';

let redis: RedisProcess;
beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const URI = 'notes://index';
const watchers: Watcher[] = [];
async function closeWatchers(): Promise<void> {
  await Promise.all(watchers.splice(0).map((w) => w.client.close().catch(() => undefined)));
}

/** A modern watcher listening for updates of {@link URI}, once the server acknowledged the listen. */
async function listening(url: string): Promise<Watcher> {
  const w = await watcher(url, 'modern');
  watchers.push(w);
  await w.client.listen({ resourceSubscriptions: [URI] });
  return w;
}

/** A 2025 session subscribed to {@link URI}, with its replica (sticky through the balancer). */
async function subscribed(url: string): Promise<Watcher & { owner: string }> {
  const w = await watcher(url, 'legacy');
  watchers.push(w);
  await w.client.subscribeResource({ uri: URI });
  const answer = await w.client.callTool({ name: 'whoami', arguments: {} });
  const owner = (answer.content as { text: string }[])[0]?.text as string;
  return Object.assign(w, { owner });
}

/** Round 1 of `greet` through the balancer, then round 2 until it lands on another replica (≤ 6 tries). */
async function crossReplicaRound(lb: string) {
  const first = await modernRequest(lb, 'tools/call', { name: 'greet', arguments: {} });
  expect(first.result?.resultType).toBe('input_required');
  for (let attempt = 0; attempt < 6; attempt++) {
    const second = await modernRequest(lb, 'tools/call', {
      name: 'greet',
      arguments: {},
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: first.result?.requestState,
    });
    if (second.replica !== first.replica) return { first, second };
  }
  throw new Error('round 2 never left the replica of round 1: the balancer is not balancing');
}

const backends = (replicas: readonly Replica[]) =>
  Object.fromEntries(replicas.map((replica) => [replica.name, replica.port]));

describe('3 replicas on the Redis bus behind HAProxy', () => {
  let replicas: Replica[];
  let roundRobin: LoadBalancer;
  let sticky: LoadBalancer;
  beforeAll(async () => {
    replicas = await startReplicas(3, { redisUrl: redis.url, stream: `test:scale:${process.pid}` });
    roundRobin = await startHaproxy(backends(replicas));
    sticky = await startHaproxy(backends(replicas), { sticky: true });
  });
  afterAll(async () => {
    await closeWatchers();
    await Promise.all([roundRobin?.stop(), sticky?.stop()]);
    await stopReplicas(replicas ?? []);
  });

  it('balances: 30 calls through the balancer reach at least 2 replicas, with no error', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const answer = await modernRequest(roundRobin.url, 'tools/call', { name: 'whoami', arguments: {} });
      const name = (answer.result?.content as { text: string }[] | undefined)?.[0]?.text;
      expect(answer.error).toBeUndefined();
      expect(name).toBe(answer.replica);
      seen.add(name as string);
    }
    expect(seen.size).toBeGreaterThanOrEqual(2);
  });

  it('one listen stream per replica: an update raised on one replica arrives exactly once on each', async () => {
    const streams = await Promise.all(replicas.map((replica) => listening(replica.url)));
    await replicas[1]?.server.notifyResourceUpdated(URI);
    await until(() => streams.every((w) => w.updates.length >= 1), 'the update on every stream');
    await sleep(300);
    expect(streams.map((w) => w.updates)).toEqual([[URI], [URI], [URI]]);
    await closeWatchers();
  });

  it('a listen stream opened through the balancer hears updates raised on each replica, once each', async () => {
    const w = await listening(roundRobin.url);
    for (const replica of replicas) await replica.server.notifyResourceUpdated(URI);
    await until(() => w.updates.length >= 3, 'three updates');
    await sleep(300);
    expect(w.updates).toEqual([URI, URI, URI]);
    await closeWatchers();
  });

  it('a 2025 session through the sticky balancer stays on its replica and hears updates raised on each replica once', async () => {
    const w = await subscribed(sticky.url);
    for (let i = 0; i < 20; i++) {
      const answer = await w.client.callTool({ name: 'whoami', arguments: {} });
      expect((answer.content as { text: string }[])[0]?.text).toBe(w.owner);
    }
    // The owner's own update first: once it arrives, the session's GET stream is open.
    const owner = replicas.find((replica) => replica.name === w.owner) as Replica;
    await owner.server.notifyResourceUpdated(URI);
    await until(() => w.updates.length === 1, 'the owner’s update');
    for (const replica of replicas) if (replica !== owner) await replica.server.notifyResourceUpdated(URI);
    await until(() => w.updates.length >= 3, 'the other replicas’ updates');
    await sleep(300);
    expect(w.updates).toEqual([URI, URI, URI]);
    await closeWatchers();
  });

  it('an input-required round started on one replica finishes on another (shared requestState key)', async () => {
    const { first, second } = await crossReplicaRound(roundRobin.url);
    expect(second.replica).not.toBe(first.replica);
    expect(second.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: `Hello Ada, from ${second.replica}` }],
    });
  });

  it('readiness stays 200 (degraded) while Redis is down, and events cross again once it is back', async () => {
    await redis.kill();
    try {
      await until(() => replicas.every((replica) => replica.bus?.connected === false), 'the buses to notice');
      // plugin-health reuses a result for 1 s: poll (bounded) until the outage shows.
      const readyUrl = replicas[0]?.url.replace('/mcp', '/health/ready') as string;
      let ready = { status: 0, body: {} as Record<string, unknown> };
      for (let i = 0; i < 30 && ready.body.status !== 'degraded'; i++) {
        const response = await fetch(readyUrl);
        ready = { status: response.status, body: (await response.json()) as Record<string, unknown> };
        if (ready.body.status !== 'degraded') await sleep(100);
      }
      expect(ready).toMatchObject({ status: 200, body: { status: 'degraded' } });
      const live = await fetch(readyUrl.replace('/ready', '/live'));
      expect(live.status).toBe(200);
      const call = await modernRequest(roundRobin.url, 'tools/call', { name: 'whoami', arguments: {} });
      expect(call.error).toBeUndefined();
    } finally {
      await redis.restart();
    }
    await until(
      () => replicas.every((replica) => replica.bus?.connected === true),
      'the buses to reconnect',
      8_000,
    );
    const streams = await Promise.all(replicas.map((replica) => listening(replica.url)));
    await replicas[2]?.server.notifyResourceUpdated(URI);
    await until(() => streams.every((w) => w.updates.length >= 1), 'the update after the outage');
    await sleep(300);
    expect(streams.map((w) => w.updates)).toEqual([[URI], [URI], [URI]]);
    await closeWatchers();
  });
});

describe('negative controls: the same scenarios without the shared parts fail', () => {
  let replicas: Replica[];
  let roundRobin: LoadBalancer;
  let sticky: LoadBalancer;
  beforeAll(async () => {
    replicas = await startReplicas(3, { sharedKey: false });
    roundRobin = await startHaproxy(backends(replicas));
    sticky = await startHaproxy(backends(replicas), { sticky: true });
  });
  afterAll(async () => {
    await closeWatchers();
    await Promise.all([roundRobin?.stop(), sticky?.stop()]);
    await stopReplicas(replicas ?? []);
  });

  it('with the default in-memory bus, an update raised on one replica never reaches streams on the others', async () => {
    const streams = await Promise.all(replicas.map((replica) => listening(replica.url)));
    await replicas[1]?.server.notifyResourceUpdated(URI);
    await until(() => (streams[1]?.updates.length ?? 0) >= 1, 'the local update');
    await sleep(500);
    expect(streams.map((w) => w.updates)).toEqual([[], [URI], []]);
    await closeWatchers();
  });

  it('with the default in-memory bus, a 2025 session hears only its own replica’s updates', async () => {
    const w = await subscribed(sticky.url);
    const owner = replicas.find((replica) => replica.name === w.owner) as Replica;
    await owner.server.notifyResourceUpdated(URI);
    await until(() => w.updates.length === 1, 'the owner’s update');
    for (const replica of replicas) if (replica !== owner) await replica.server.notifyResourceUpdated(URI);
    await sleep(500);
    expect(w.updates).toEqual([URI]);
    await closeWatchers();
  });

  it('with per-process keys, round 2 on another replica is refused with -32602', async () => {
    const { first, second } = await crossReplicaRound(roundRobin.url);
    expect(second.replica).not.toBe(first.replica);
    expect(second.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
  });
});
