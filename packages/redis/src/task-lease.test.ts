// A task outlives the process running it only by its lease: two replica processes share the Redis task
// store on a real redis-server, and the one running a task is SIGKILLed (no close, no final save). The
// other then reads the task `failed` within a few leases instead of `working` until its TTL (a minute
// here, an hour by default). Negative control: the same with `leaseMs: 0` leaves the task `working`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureInstalled,
  type RedisProcess,
  type ReplicaProcess,
  spawnReplica,
  startRedis,
  stopReplica,
} from './test-infra.js';
import { type ModernAnswer, modernRequest, sleep, until } from './test-replicas.js';

const LEASE_MS = 1_000;
let redis: RedisProcess;
const started: ReplicaProcess[] = [];
beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(started.map(stopReplica));
  await redis?.stop();
});

/** Two replica processes sharing tasks in Redis under a prefix of their own. */
async function pair(leaseMs: number): Promise<[ReplicaProcess, ReplicaProcess]> {
  const env = {
    REDIS_URL: redis.url,
    TASK_PREFIX: `test:lease:${process.pid}:${leaseMs}:`,
    TASK_LEASE_MS: String(leaseMs),
  };
  const replicas = await Promise.all([spawnReplica(`l${leaseMs}a`, env), spawnReplica(`l${leaseMs}b`, env)]);
  started.push(...replicas);
  return replicas;
}

/** Starts the `slow` task through `replica`; its id. */
async function startSlow(replica: ReplicaProcess): Promise<string> {
  const answer = await modernRequest(replica.url, 'tools/call', { name: 'slow', arguments: {} });
  expect(answer.error).toBeUndefined();
  expect(answer.result).toMatchObject({ resultType: 'task', status: 'working' });
  return answer.result?.taskId as string;
}

async function kill(replica: ReplicaProcess): Promise<void> {
  process.kill(replica.child.pid as number, 'SIGKILL');
  await until(() => !replica.alive(), `${replica.name} to die`, 5_000);
}

describe('a task whose replica process was SIGKILLed', () => {
  it('reads as failed through the other replica within a few leases, not working until its TTL', async () => {
    const [runner, other] = await pair(LEASE_MS);
    const taskId = await startSlow(runner);
    // Two and a half leases: the runner's renewals keep it working for the other replica meanwhile.
    await sleep(2.5 * LEASE_MS);
    expect((await modernRequest(other.url, 'tasks/get', { taskId })).result).toMatchObject({
      status: 'working',
    });

    await kill(runner);
    let last: ModernAnswer | undefined;
    // Bounded: ten leases at most (the lease alone should take one).
    for (let i = 0; i < 100; i++) {
      last = await modernRequest(other.url, 'tasks/get', { taskId });
      if (last.result?.status !== 'working') break;
      await sleep(LEASE_MS / 10);
    }
    expect(last?.result).toMatchObject({
      taskId,
      status: 'failed',
      error: { code: -32603, message: 'the server process running the task stopped before it finished' },
    });
    // Final: a cancel through the survivor changes nothing.
    await modernRequest(other.url, 'tasks/cancel', { taskId });
    expect((await modernRequest(other.url, 'tasks/get', { taskId })).result).toMatchObject({
      status: 'failed',
    });
  });

  it('negative control: with leaseMs 0 the same task still reads working long after its process died', async () => {
    const [runner, other] = await pair(0);
    const taskId = await startSlow(runner);
    await kill(runner);
    await sleep(3 * LEASE_MS);
    expect((await modernRequest(other.url, 'tasks/get', { taskId })).result).toMatchObject({
      status: 'working',
    });
  });
});
