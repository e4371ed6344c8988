// 2025-era sessions on any replica: three replica processes with the Redis session relay behind a real
// HAProxy balancing round-robin (no affinity), used by real SDK clients (v2 in 2025 mode, and v1). The
// negative control runs the same session through the same balancer without the relay: it must fail.
import { createServer as createHttpServer, type Server } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisSessionRelay } from './index.js';
import {
  ensureInstalled,
  type LoadBalancer,
  type RedisProcess,
  type ReplicaProcess,
  spawnReplica,
  startHaproxy,
  startRedis,
  stopReplica,
} from './test-infra.js';
import { type Replica, sleep, startReplicas, stopReplicas, until } from './test-replicas.js';

const PREFIX = `test:relay:${process.pid}:`;
const URI = 'notes://index';
const LEGACY = '2025-11-25';

/** Each HTTP exchange a client made: what it sent, and which replica HAProxy picked. */
interface Sent {
  readonly kind: string;
  readonly replica: string | null;
  readonly status: number;
}

/** A fetch for SDK transports that records every exchange. */
function recordingFetch(log: Sent[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    let kind = init?.method ?? 'GET';
    if (typeof init?.body === 'string') {
      const message = JSON.parse(init.body) as { method?: string; result?: unknown };
      kind = message.method ?? (message.result !== undefined ? 'answer' : 'other');
    }
    log.push({ kind, replica: response.headers.get('x-pier-replica'), status: response.status });
    return response;
  };
}

/** Listens on a free loopback port; resolves with its URL. */
function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/mcp`);
    }),
  );
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;

/** A raw 2025 request straight to one replica (no balancer). */
async function raw(
  url: string,
  message: Record<string, unknown>,
  session?: string,
  method = 'POST',
): Promise<{ status: number; session: string | null; body: string }> {
  const response = await fetch(url, {
    method,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LEGACY,
      ...(session !== undefined && { 'mcp-session-id': session }),
    },
    ...(method === 'POST' && { body: JSON.stringify({ jsonrpc: '2.0', ...message }) }),
    signal: AbortSignal.timeout(10_000),
  });
  return {
    status: response.status,
    session: response.headers.get('mcp-session-id'),
    body: await response.text(),
  };
}

const INITIALIZE = {
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
};

/** A v2 client in 2025 mode that answers elicitations with a name. */
async function v2Client(url: string, log: Sent[]): Promise<Client> {
  const client = new Client({ name: 'relay-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { name: 'Ada' },
  }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch(log) }));
  return client;
}

/**
 * Calls `greet` until the client's answer to the elicitation went through a replica other than `owner`
 * (at most 6 tries); every call must complete with the owner's greeting, within a generous bound.
 */
async function elicitViaNonOwner(
  call: () => Promise<unknown>,
  log: Sent[],
  owner: string,
): Promise<string | null> {
  for (let attempt = 0; attempt < 6; attempt++) {
    const before = log.length;
    const started = performance.now();
    const result = await call();
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(text(result)).toBe(`Hello Ada, from ${owner}`);
    // The tool may finish before the answer's own 202 is back through the relay: wait for it (bounded).
    await until(() => log.slice(before).some((sent) => sent.kind === 'answer'), 'the answer’s 202', 5_000);
    const answer = log.slice(before).find((sent) => sent.kind === 'answer');
    expect(answer?.status).toBe(202);
    if (answer?.replica !== owner) return answer?.replica ?? null;
  }
  throw new Error('the elicitation answer never left the owner: the balancer is not balancing');
}

let redis: RedisProcess;
let keys: ReturnType<typeof createClient>;
beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
  keys = createClient({ url: redis.url });
  keys.on('error', () => {});
  await keys.connect();
}, 300_000);
afterAll(async () => {
  await keys?.close();
  await redis?.stop();
});

const sessionKeys = () => keys.keys(`${PREFIX}*`);
/** Waits (bounded) for every session key to go: releases are written just after the answer. */
async function noKeysLeft(): Promise<void> {
  for (let i = 0; i < 50 && (await sessionKeys()).length > 0; i++) await sleep(20);
  expect(await sessionKeys()).toEqual([]);
}

describe('2025 sessions on any replica: the Redis relay behind round-robin HAProxy', () => {
  let replicas: ReplicaProcess[] = [];
  let lb: LoadBalancer;
  const byName = (name: string | null | undefined) => replicas.find((replica) => replica.name === name);

  beforeAll(async () => {
    replicas = await Promise.all(
      ['r1', 'r2', 'r3'].map((name) =>
        spawnReplica(name, { REDIS_URL: redis.url, RELAY: '1', PREFIX, MAX_SESSIONS: '3', IDLE_MS: '3000' }),
      ),
    );
    lb = await startHaproxy(Object.fromEntries(replicas.map((replica) => [replica.name, replica.port])));
  }, 60_000);
  afterAll(async () => {
    await lb?.stop();
    await Promise.all(replicas.map(stopReplica));
  });

  it('an SDK v2 (2025) session works through all three replicas: calls, an elicitation answered via a non-owner, GET-stream updates', async () => {
    const log: Sent[] = [];
    const client = await v2Client(lb.url, log);
    const owner = text(await client.callTool({ name: 'whoami', arguments: {} })) as string;
    for (let i = 0; i < 8; i++)
      expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toBe(owner);
    // Requests of the one session reached every replica; each was served by the owner.
    expect(new Set(log.map((sent) => sent.replica)).size).toBe(3);
    expect(log.every((sent) => sent.status < 400)).toBe(true);

    const via = await elicitViaNonOwner(() => client.callTool({ name: 'greet', arguments: {} }), log, owner);
    expect(via).not.toBe(owner);

    // The GET stream, wherever it landed, carries the owner's notifications.
    const updates: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    await client.subscribeResource({ uri: URI });
    await until(
      () => log.some((sent) => sent.kind === 'GET' && sent.status === 200),
      'the GET stream',
      5_000,
    );
    await client.callTool({ name: 'bump', arguments: {} });
    await until(() => updates.length >= 1, 'the update on the GET stream', 5_000);
    expect(updates).toEqual([URI]);

    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await client.close();
    await noKeysLeft();
  });

  it('an SDK v1 session works through the balancer, elicitation answered via a non-owner included', async () => {
    const log: Sent[] = [];
    const client = new V1Client(
      { name: 'relay-v1', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
    const transport = new V1Transport(new URL(lb.url), { fetch: recordingFetch(log) });
    await client.connect(transport);
    const owner = text(await client.callTool({ name: 'whoami', arguments: {} })) as string;
    for (let i = 0; i < 5; i++)
      expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toBe(owner);
    expect(new Set(log.map((sent) => sent.replica)).size).toBeGreaterThanOrEqual(2);
    await elicitViaNonOwner(() => client.callTool({ name: 'greet', arguments: {} }), log, owner);
    await transport.terminateSession();
    await client.close();
    await noKeysLeft();
  });

  it('initialize on r1, initialized on r2, tools/list on r3; DELETE via r2 ends it on every replica', async () => {
    const [r1, r2, r3] = replicas as [ReplicaProcess, ReplicaProcess, ReplicaProcess];
    const opened = await raw(r1.url, INITIALIZE);
    expect(opened.status).toBe(200);
    const id = opened.session as string;
    expect((await raw(r2.url, { method: 'notifications/initialized' }, id)).status).toBe(202);
    const listed = await raw(r3.url, { id: 2, method: 'tools/list' }, id);
    expect(listed.status).toBe(200);
    expect(listed.body).toContain('whoami');
    expect(await sessionKeys()).toContain(`${PREFIX}s:${id}`);

    expect((await raw(r2.url, {}, id, 'DELETE')).status).toBe(200);
    for (const replica of [r1, r2, r3]) {
      const after = await raw(replica.url, { id: 3, method: 'tools/list' }, id);
      expect(after.status).toBe(404);
      expect(JSON.parse(after.body)).toMatchObject({ error: { code: -32001, message: 'Session not found' } });
    }
    await noKeysLeft();
  });

  it('maxSessions counts the fleet: with one session on each replica (cap 3), a fourth is refused anywhere', async () => {
    const ids: string[] = [];
    for (const replica of replicas) {
      const opened = await raw(replica.url, INITIALIZE);
      expect(opened.status).toBe(200);
      ids.push(opened.session as string);
    }
    for (const replica of replicas) {
      const refused = await raw(replica.url, INITIALIZE);
      expect(refused.status).toBe(503);
    }
    // Ending one (through a replica that does not own it) frees a slot for the fleet.
    expect((await raw(replicas[1]?.url as string, {}, ids[0], 'DELETE')).status).toBe(200);
    const again = await raw(replicas[2]?.url as string, INITIALIZE);
    expect(again.status).toBe(200);
    ids[0] = again.session as string;
    for (const id of ids) expect((await raw(lb.url, {}, id, 'DELETE')).status).toBe(200);
    await noKeysLeft();
  });

  it('idle expiry runs on the owner’s clock: use through other replicas keeps it alive, then it expires everywhere', async () => {
    const [r1, r2, r3] = replicas as [ReplicaProcess, ReplicaProcess, ReplicaProcess];
    const opened = await raw(r1.url, INITIALIZE);
    const id = opened.session as string;
    // Used only through r2 and r3 for longer than the idle timeout (3 s): still alive on its owner.
    for (let i = 0; i < 6; i++) {
      const used = await raw(i % 2 === 0 ? r2.url : r3.url, { id: 10 + i, method: 'tools/list' }, id);
      expect(used.status).toBe(200);
      await sleep(700);
    }
    // Left alone (any request would count as use): the owner expires it after the timeout and a sweep,
    // which releases its record; every replica then answers 404.
    for (let i = 0; i < 50 && (await keys.exists(`${PREFIX}s:${id}`)) === 1; i++) await sleep(200);
    for (const replica of [r1, r2, r3]) {
      expect((await raw(replica.url, { id: 31, method: 'tools/list' }, id)).status).toBe(404);
    }
    await noKeysLeft();
  });

  it('the owner SIGKILLed: the session answers 404 at once on the others (no hang), the client re-initializes', async () => {
    const log: Sent[] = [];
    const client = await v2Client(lb.url, log);
    const owner = byName(text(await client.callTool({ name: 'whoami', arguments: {} })));
    const id = (client.transport as StreamableHTTPClientTransport).sessionId as string;
    expect(owner).toBeDefined();
    process.kill(owner?.child.pid as number, 'SIGKILL');
    await until(() => !owner?.alive(), 'the owner to die', 5_000);

    const survivor = replicas.find((replica) => replica !== owner) as ReplicaProcess;
    const started = performance.now();
    const answer = await raw(survivor.url, { id: 9, method: 'tools/list' }, id);
    expect(answer.status).toBe(404);
    expect(performance.now() - started).toBeLessThan(5_000);
    await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow(/404|not found/i);
    await client.close();

    // Starting over works, on the replicas still up.
    const fresh = await v2Client(lb.url, []);
    expect(replicas.map((r) => r.name)).toContain(
      text(await fresh.callTool({ name: 'whoami', arguments: {} })),
    );
    await (fresh.transport as StreamableHTTPClientTransport).terminateSession();
    await fresh.close();
    // The dead owner's record went when a replica found the owner gone: no keys left.
    await noKeysLeft();
  });
});

describe('the relay on its own, with a real Redis', () => {
  it('a request from another principal is refused like an unknown id, and nothing reaches the owner', async () => {
    const seen: (string | undefined)[] = [];
    const owner = createHttpServer((req, res) => {
      seen.push(req.headers['x-pier-relayed'] as string | undefined);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const relayA = redisSessionRelay({ url: redis.url, prefix: PREFIX, nodeId: 'a' });
    const relayB = redisSessionRelay({ url: redis.url, prefix: PREFIX, nodeId: 'b' });
    // B's front door: what the transport does with a session id it does not hold.
    const front = createHttpServer((req, res) => {
      const principal = req.headers['x-user'] as string | undefined;
      void relayB.relay({ sessionId: 's1', principal, req, res, body: undefined }).then((served) => {
        if (!served) res.writeHead(404).end();
      });
    });
    try {
      const ownerUrl = await listen(owner);
      const frontUrl = await listen(front);
      await Promise.all([relayA.ready, relayB.ready]);
      const claim = { principal: 'alice', endpoint: ownerUrl, maxSessions: 10, idleTimeoutMs: 60_000 };
      expect(await relayA.claim('s1', claim)).toBe(true);
      expect((await fetch(frontUrl, { headers: { 'x-user': 'mallory' } })).status).toBe(404);
      expect((await fetch(frontUrl)).status).toBe(404);
      expect(seen).toEqual([]);
      expect((await fetch(frontUrl, { headers: { 'x-user': 'alice' } })).status).toBe(200);
      expect(seen).toEqual(['b']);
      // The principal itself never goes to Redis, only a hash of it.
      expect(await keys.get(`${PREFIX}s:s1`)).not.toContain('alice');
      relayA.release('s1');
    } finally {
      await Promise.all([relayA.close(), relayB.close()]);
      front.close();
      owner.close();
    }
    await noKeysLeft();
  });
});

describe('negative control: the same session through round-robin HAProxy without the relay', () => {
  let replicas: Replica[];
  let lb: LoadBalancer;
  beforeAll(async () => {
    replicas = await startReplicas(3);
    lb = await startHaproxy(Object.fromEntries(replicas.map((replica) => [replica.name, replica.port])));
  });
  afterAll(async () => {
    await lb?.stop();
    await stopReplicas(replicas ?? []);
  });

  it('fails: requests of the session reaching other replicas get 404', async () => {
    const log: Sent[] = [];
    const use = async () => {
      const client = await v2Client(lb.url, log);
      try {
        for (let i = 0; i < 6; i++) await client.callTool({ name: 'whoami', arguments: {} });
      } finally {
        await client.close();
      }
    };
    await expect(use()).rejects.toThrow();
    expect(log.some((sent) => sent.status === 404)).toBe(true);
  });
});
