// ADD_NOTE_LIMIT across the fleet: three replicas of the built app behind a real HAProxy running
// deploy/haproxy.cfg (round-robin), on one real redis-server. With REDIS_URL a limit of N admits exactly N
// add_note calls, from a concurrent burst spread over every replica; the keys it writes expire. Negative
// control: the same fleet without REDIS_URL counts per replica and admits 3·N.
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanUp } from './test-app.js';
import {
  callTool,
  ensureInstalled,
  type LoadBalancer,
  type RedisProcess,
  type Replica,
  replicas,
  startHaproxy,
  startRedis,
  stopChild,
} from './test-fleet.js';

const N = 4;
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let redis: RedisProcess;
beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
}, 240_000);
afterAll(async () => {
  await redis?.stop();
  await cleanUp();
});

/** One raw 2026-07-28 `add_note` through `url`: whether it was admitted, and the replica that answered. */
async function addNote(url: string): Promise<{ admitted: boolean; replica: string | null; text: string }> {
  const answer = await callTool(url, 'add_note', { title: 'limited', body: 'x' });
  if (answer.status !== 200 || answer.result === undefined) {
    throw new Error(`HTTP ${answer.status} from ${answer.replica}: ${JSON.stringify(answer.error)}`);
  }
  const result = answer.result as { isError?: boolean; content?: { text?: string }[] };
  return {
    admitted: result.isError !== true,
    replica: answer.replica,
    text: result.content?.[0]?.text ?? '',
  };
}

async function fleetOf(env: NodeJS.ProcessEnv): Promise<{ fleet: Replica[]; lb: LoadBalancer }> {
  // A generous check timeout: the first writes of notes.json on a loaded disk can outlast the default,
  // and a replica whose critical data-dir check times out leaves the balancer (not what is tested here).
  const fleet = await replicas(3, { ADD_NOTE_LIMIT: String(N), TIMEOUT: '5000', ...env });
  await Promise.all(fleet.map((replica) => replica.start()));
  return { fleet, lb: await startHaproxy(fleet) };
}

async function stop({ fleet, lb }: { fleet: readonly Replica[]; lb: LoadBalancer }): Promise<void> {
  await lb.stop();
  await Promise.all(fleet.map((replica) => replica.process && stopChild(replica.process.child, 'SIGINT')));
}

describe('ADD_NOTE_LIMIT on 3 replicas behind HAProxy', () => {
  it(`with REDIS_URL: a concurrent burst of ${3 * N} add_note calls admits exactly ${N}, across every replica`, async () => {
    const running = await fleetOf({ REDIS_URL: redis.url });
    try {
      const answers = await Promise.all(Array.from({ length: 3 * N }, () => addNote(running.lb.url)));
      // No replica decided without Redis (failing open would admit uncounted calls).
      for (const replica of running.fleet)
        expect(replica.process?.stderr()).not.toMatch(/limit store is unreachable/);
      expect(answers.filter((answer) => answer.admitted)).toHaveLength(N);
      // Refusals and admissions came from every replica: one count for the fleet, not luck.
      expect(new Set(answers.map((answer) => answer.replica)).size).toBe(3);
      const refusal = answers.find((answer) => !answer.admitted);
      expect(refusal?.text).toMatch(
        new RegExp(
          `^Rate limit "add-note" reached \\(${N} calls per minute per principal\\); retry in \\d+ s\\.$`,
        ),
      );
      // Sequential calls later still find the budget spent, whichever replica answers.
      for (let call = 0; call < 3; call++) expect((await addNote(running.lb.url)).admitted).toBe(false);
      // The limit's keys in Redis expire by themselves (a token bucket's key when the bucket is full again).
      const admin = createClient({ url: redis.url });
      admin.on('error', () => {});
      await admin.connect();
      try {
        const keys = await admin.keys('pier-notes:limit:*');
        expect(keys.length).toBeGreaterThan(0);
        for (const key of keys) {
          const ttl = await admin.pTTL(key);
          expect(ttl).toBeGreaterThan(0);
          expect(ttl).toBeLessThanOrEqual(60_000);
        }
      } finally {
        await admin.close();
      }
    } finally {
      await stop(running);
    }
  });

  it(`negative control, without REDIS_URL: each replica counts alone and the fleet admits 3·${N}`, async () => {
    const running = await fleetOf({});
    try {
      // Sequential round-robin: every replica gets more than N calls.
      const answers = [];
      for (let call = 0; call < 5 * N; call++) answers.push(await addNote(running.lb.url));
      expect(answers.filter((answer) => answer.admitted)).toHaveLength(3 * N);
    } finally {
      await stop(running);
    }
  });
});
