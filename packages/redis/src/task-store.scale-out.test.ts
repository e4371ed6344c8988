// Tasks across three replicas behind a real HAProxy (round-robin) on a real redis-server: a task created
// through one replica is polled and fetched through the others, answered through another, and cancelled
// through another, the cancel reaching the handler running on the first. Negative control: with the
// embedded in-memory store, the other replicas do not know the task.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureInstalled,
  type LoadBalancer,
  type RedisProcess,
  startHaproxy,
  startRedis,
} from './test-infra.js';
import {
  type ModernAnswer,
  modernRequest,
  type Replica,
  sleep,
  startReplicas,
  stopReplicas,
  until,
} from './test-replicas.js';

let redis: RedisProcess;
beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const backends = (replicas: readonly Replica[]) =>
  Object.fromEntries(replicas.map((replica) => [replica.name, replica.port]));

/** Starts a task of `tool` through the balancer; its id and the replica running its handler. */
async function started(lb: string, tool: string): Promise<{ taskId: string; created: string }> {
  const answer = await modernRequest(lb, 'tools/call', { name: tool, arguments: {} });
  expect(answer.error).toBeUndefined();
  expect(answer.result).toMatchObject({ resultType: 'task', pollIntervalMs: 50 });
  return { taskId: answer.result?.taskId as string, created: answer.replica as string };
}

describe('tasks on 3 replicas sharing the Redis task store, behind HAProxy', () => {
  let replicas: Replica[];
  let lb: LoadBalancer;
  const prefix = `test:scale-tasks:${process.pid}:`;
  beforeAll(async () => {
    replicas = await startReplicas(3, { redisUrl: redis.url, taskPrefix: prefix, sharedKey: false });
    lb = await startHaproxy(backends(replicas));
  });
  afterAll(async () => {
    await lb?.stop();
    await stopReplicas(replicas ?? []);
  });
  const owner = (name: string) => replicas.find((replica) => replica.name === name) as Replica;
  const others = (name: string) => replicas.filter((replica) => replica.name !== name);

  it('a task created through one replica is polled through the others and its result fetched there', async () => {
    const { taskId, created } = await started(lb.url, 'quick');
    const pollers = new Set<string>();
    let last: ModernAnswer | undefined;
    for (let i = 0; i < 100; i++) {
      last = await modernRequest(lb.url, 'tasks/get', { taskId });
      expect(last.error).toBeUndefined();
      pollers.add(last.replica as string);
      if (last.result?.status === 'completed' && [...pollers].some((name) => name !== created)) break;
      await sleep(20);
    }
    expect([...pollers].some((name) => name !== created)).toBe(true);
    expect(last?.result).toMatchObject({
      taskId,
      status: 'completed',
      result: { content: [{ type: 'text', text: `done by ${created}` }] },
    });
    // Every replica answers the same, directly too.
    for (const replica of replicas) {
      expect((await modernRequest(replica.url, 'tasks/get', { taskId })).result).toMatchObject({
        status: 'completed',
      });
    }
  });

  it('a cancel through another replica reaches the handler running on the first', async () => {
    const { taskId, created } = await started(lb.url, 'slow');
    const runner = owner(created);
    const elsewhere = others(runner.name)[0] as Replica;
    expect((await modernRequest(elsewhere.url, 'tasks/get', { taskId })).result).toMatchObject({
      status: 'working',
    });
    expect((await modernRequest(elsewhere.url, 'tasks/cancel', { taskId })).result).toBeDefined();
    await until(() => runner.aborted.length === 1, `the run on ${runner.name} to be aborted`);
    expect(runner.aborted).toEqual([runner.name]);
    for (const replica of replicas) {
      expect((await modernRequest(replica.url, 'tasks/get', { taskId })).result).toMatchObject({
        status: 'cancelled',
      });
    }
  });

  it('a question asked on one replica is answered through another, and the task completes on the first', async () => {
    const { taskId, created } = await started(lb.url, 'confirm');
    const elsewhere = others(created)[1] as Replica;
    const parked = await modernRequest(elsewhere.url, 'tasks/get', { taskId });
    expect(parked.result?.status).toBe('input_required');
    const [key] = Object.keys(parked.result?.inputRequests as object);
    const ack = await modernRequest(elsewhere.url, 'tasks/update', {
      taskId,
      inputResponses: { [key as string]: { action: 'accept', content: { ok: true } } },
    });
    expect(ack.error).toBeUndefined();
    let done: ModernAnswer | undefined;
    for (let i = 0; i < 100 && done?.result?.status !== 'completed'; i++) {
      done = await modernRequest(lb.url, 'tasks/get', { taskId });
      if (done.result?.status !== 'completed') await sleep(20);
    }
    expect(done?.result).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: `confirmed on ${created}` }] },
    });
  });
});

describe('negative control: 3 replicas with the embedded in-memory task store, behind HAProxy', () => {
  let replicas: Replica[];
  let lb: LoadBalancer;
  beforeAll(async () => {
    replicas = await startReplicas(3, { sharedKey: false });
    lb = await startHaproxy(backends(replicas));
  });
  afterAll(async () => {
    await lb?.stop();
    await stopReplicas(replicas ?? []);
  });

  it('another replica does not know the task: tasks/get and tasks/cancel there are -32602, the run goes on', async () => {
    const { taskId, created } = await started(lb.url, 'slow');
    const runner = replicas.find((replica) => replica.name === created) as Replica;
    expect((await modernRequest(runner.url, 'tasks/get', { taskId })).result).toMatchObject({
      status: 'working',
    });
    for (const replica of replicas.filter((r) => r !== runner)) {
      expect((await modernRequest(replica.url, 'tasks/get', { taskId })).error).toMatchObject({
        code: -32602,
      });
      expect((await modernRequest(replica.url, 'tasks/cancel', { taskId })).error).toMatchObject({
        code: -32602,
      });
    }
    await sleep(200);
    expect(runner.aborted).toEqual([]);
    // Through its own replica the cancel works (and stops the run before the fleet closes).
    await modernRequest(runner.url, 'tasks/cancel', { taskId });
    await until(() => runner.aborted.length === 1, 'the local cancel');
  });
});
