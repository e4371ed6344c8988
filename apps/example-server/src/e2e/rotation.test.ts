// The input-required key rotates across a fleet without splitting it. Replicas of the built app share a
// real redis-server (REDIS_URL, no REQUEST_STATE_KEY); the SDK v2 client (2026-07-28) deletes a note and
// answers the confirmation, its round 1 going to one replica and round 2 (the retry carrying requestState)
// to another. After `DEL pier-notes:request-state-key` a replica started later signs with the new key while
// the old ones still hold the old key: rounds cross both ways. After Redis loses everything (killed,
// restarted empty) a replica started then and the old ones agree on one new key within seconds. @pier/redis's tests hold the negative control (a key
// read once at start, the old behaviour, splits the fleet: -32602).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { REQUEST_STATE_REDIS_KEY } from '../scale-out.js';
import { cleanUp } from './test-app.js';
import { structured, textOf } from './test-clients.js';
import {
  ensureInstalled,
  type RedisProcess,
  type Replica,
  replicas,
  startRedis,
  stopChild,
} from './test-fleet.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let redis: RedisProcess;
beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
}, 240_000);
afterAll(async () => {
  await redis?.stop();
});
const fleets: Replica[][] = [];
afterEach(async () => {
  for (const fleet of fleets.splice(0)) {
    await Promise.all(fleet.map((replica) => stopReplica(replica)));
  }
  await cleanUp();
});

async function stopReplica(replica: Replica): Promise<void> {
  const child = replica.process?.child;
  if (child !== undefined) await stopChild(child, 'SIGINT');
}

/** Replicas r<first>… of the app on the shared Redis, started. */
async function fleet(count: number, first = 1): Promise<Replica[]> {
  const started = await replicas(count, { REDIS_URL: redis.url });
  // Names say which replica answered: r1, r2… (the helper numbers from 1; renamed for later ones).
  const named = started.map((replica, index) => Object.assign(replica, { name: `r${first + index}` }));
  await Promise.all(named.map((replica) => replica.start()));
  fleets.push(named);
  return named;
}

/**
 * delete_note through the SDK v2 client, the user confirming: round 1 on `first`, round 2 on `second`.
 * Resolves with the tool's text, or rejects as the client does when round 2 is refused.
 */
async function deleteAcross(first: Replica, second: Replica): Promise<string> {
  const routed: typeof fetch = (input, init) => {
    const retry = typeof init?.body === 'string' && init.body.includes('"requestState"');
    return fetch(retry ? second.url : input, init);
  };
  const client = new Client(
    { name: 'rotation', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { confirm: true },
  }));
  await client.connect(new StreamableHTTPClientTransport(new URL(first.url), { fetch: routed }));
  try {
    const added = structured<{ note: { id: string } }>(
      await client.callTool({ name: 'add_note', arguments: { title: 'to delete', body: 'x' } }),
    );
    const id = added.note.id;
    const text = textOf(await client.callTool({ name: 'delete_note', arguments: { id } }));
    expect(text).toBe(`deleted note ${id}`);
    return text;
  } finally {
    await client.close();
  }
}

async function redisClient() {
  const client = createClient({ url: redis.url });
  await client.connect();
  return client;
}

describe('the shared input-required key (REDIS_URL, no REQUEST_STATE_KEY)', () => {
  it('deleting it rotates it: rounds cross between old replicas and one started after, both ways', async () => {
    const [r1, r2] = (await fleet(2)) as [Replica, Replica];
    await deleteAcross(r1, r2);
    const raw = await redisClient();
    try {
      const before = await raw.get(REQUEST_STATE_REDIS_KEY);
      expect(before).not.toBeNull();
      await raw.del(REQUEST_STATE_REDIS_KEY);
      const [r3] = (await fleet(1, 3)) as [Replica];
      // r1 signs with the key it holds (the old one if it read it within 5 s): r3 accepts either.
      await deleteAcross(r1, r3);
      await deleteAcross(r3, r2); // the new key: r2 re-reads the keys if it still holds the old one
      await deleteAcross(r2, r1);
      // r3 made the new key at its start, keeping the old one as the previous.
      const after = await raw.get(REQUEST_STATE_REDIS_KEY);
      expect(after).not.toBeNull();
      expect(after).not.toBe(before);
      expect(await raw.get(`${REQUEST_STATE_REDIS_KEY}:previous`)).toBe(before);
    } finally {
      await raw.close();
    }
  });

  it('Redis restarted empty: a replica started after it and the old ones agree on one key within seconds', async () => {
    const [r1, r2] = (await fleet(2)) as [Replica, Replica];
    await deleteAcross(r1, r2);
    await redis.kill();
    await redis.restart();
    // r3 makes a new key (its start waits for Redis); r1 and r2 notice the missing key when they next read
    // (at most 5 s after their last read, or at once when a state fails to verify): one script makes one
    // key for all. A round signed just before the data was lost may fail once; the fleet does not stay split.
    const [r3] = (await fleet(1, 3)) as [Replica];
    const deadline = Date.now() + 20_000;
    for (;;) {
      const crossed = await Promise.all([deleteAcross(r1, r3), deleteAcross(r3, r2)]).then(
        () => true,
        (error: unknown) => {
          if (Date.now() > deadline) throw error;
          return false;
        },
      );
      if (crossed) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // And it stays that way, every direction.
    await deleteAcross(r2, r3);
    await deleteAcross(r3, r1);
    await deleteAcross(r1, r2);
  });
});
