// Two replicas behind one public address, sharing a real redis-server through @pier/redis's key-value store:
// a login begun on one (discovery, registration, consent) is finished on the other (the provider's callback,
// the code exchange, the MCP calls), and either replica accepts the tokens. The negative control runs the
// same scenario with each replica on its own in-memory store: the second replica knows nothing of the login.
import { createServer, request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { KeyValueStore } from '@pier/core';
import { type RedisKeyValueStore, redisKeyValueStore } from '@pier/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callback, MemoryOAuthProvider, startCallback } from '../../plugin-auth/src/test-flows.js';
import { ensureInstalled, type RedisProcess, startRedis } from '../../redis/src/test-infra.js';
import { github } from './index.js';
import { Browser, toProxyCallback } from './test-browser.js';
import { freePort, type NotesRig, startNotes } from './test-rig.js';
import { githubId, startUpstream, type Upstream } from './test-upstream.js';

const APP = { clientId: 'replicated-app', clientSecret: 'replicated-secret-0123456789abcdef0123' };

let redis: RedisProcess;
let upstream: Upstream;
let callback: Callback;
let balancer: Balancer;
const stores: RedisKeyValueStore[] = [];

/** The public address: forwards every request to the replica the test names, like a load balancer would. */
interface Balancer {
  readonly port: number;
  target: number;
  /** Which replica port served each request, as `port METHOD path`. */
  readonly served: string[];
  close(): Promise<void>;
}

async function startBalancer(port: number): Promise<Balancer> {
  const served: string[] = [];
  const server = createServer((req, res) => {
    const target = balancer.target;
    served.push(`${target} ${req.method} ${(req.url ?? '').split('?')[0]}`);
    const forward = request(
      { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const balancer: Balancer = {
    port,
    target: 0,
    served,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return balancer;
}

beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
  const port = await freePort();
  callback = await startCallback();
  upstream = await startUpstream({
    clients: [{ ...APP, redirectUri: `http://127.0.0.1:${port}/oauth/callback` }],
  });
  balancer = await startBalancer(port);
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await balancer?.close();
  await upstream?.close();
  await callback?.close();
  await redis?.stop();
});

/** Two replicas of one server (the public address as their resource), each with the store `make` gives. */
async function replicas(make: () => KeyValueStore): Promise<[NotesRig, NotesRig]> {
  const resource = `http://127.0.0.1:${balancer.port}/mcp`;
  const start = async () =>
    startNotes(await freePort(), {
      resource,
      upstream: github({ ...APP, ...upstream.github }),
      store: make(),
    });
  return [await start(), await start()];
}

const portOf = (rig: NotesRig) => Number(new URL(rig.url).port);

/**
 * The SDK client connects through the public address. Replica `first` answers until the person approved on
 * the consent page; replica `second` answers from the provider's redirect back on.
 */
async function loginAcross(first: NotesRig, second: NotesRig) {
  balancer.target = portOf(first);
  const url = `http://127.0.0.1:${balancer.port}/mcp`;
  const provider = new MemoryOAuthProvider(callback);
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider as never });
  const client = new Client({ name: 'replicas', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(transport).catch(() => undefined);
  const browser = new Browser();
  const intercepted = await toProxyCallback(
    browser,
    provider.pending.href,
    `http://127.0.0.1:${balancer.port}`,
  );
  // The load balancer now sends everything to the other replica.
  balancer.target = portOf(second);
  const back = await browser.request(intercepted);
  return { provider, transport, client, browser, back, url };
}

describe('two replicas on one Redis store', () => {
  it('a login begun on replica A is finished on replica B, and both accept its tokens', async () => {
    const [a, b] = await replicas(() => {
      const store = redisKeyValueStore({ url: redis.url, prefix: 'replicas-test:' });
      stores.push(store);
      return store;
    });
    try {
      const { provider, transport, back, url } = await loginAcross(a, b);
      expect(back.status).toBe(302);
      const params = new URL(back.headers.get('location') as string).searchParams;
      expect(params.get('code')).toBeTruthy();
      await transport.finishAuth(params);
      const client = new Client(
        { name: 'replicas', version: '1.0.0' },
        { versionNegotiation: { mode: 'auto' } },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), { authProvider: provider as never }),
      );
      const me = await client.callTool({ name: 'whoami', arguments: {} });
      expect(me.structuredContent).toMatchObject({
        subject: String(githubId('alice')),
        clientId: provider.clientId,
      });
      // Who did what: A registered the client and took the consent; B finished the login and issued tokens.
      expect(balancer.served).toEqual(
        expect.arrayContaining([
          `${portOf(a)} POST /oauth/register`,
          `${portOf(a)} POST /oauth/consent`,
          `${portOf(b)} GET /oauth/callback`,
          `${portOf(b)} POST /oauth/token`,
        ]),
      );
      expect(a.logs.some((line) => line.includes('client registered'))).toBe(true);
      expect(a.logs.some((line) => line.includes('consent given'))).toBe(true);
      expect(b.logs.some((line) => line.includes('login completed'))).toBe(true);
      expect(b.issued()).toBe(1);
      expect(a.issued()).toBe(0);
      // A token signed on B verifies on A (one key per period, shared through the store), and the tool on A
      // reads the provider token B stored.
      balancer.target = portOf(a);
      expect(await client.callTool({ name: 'whoami', arguments: {} })).toMatchObject({
        structuredContent: { subject: String(githubId('alice')) },
      });
      await client.close();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('negative control: with each replica on its own memory, replica B refuses the login A began', async () => {
    const { InMemoryKeyValueStore } = await import('@pier/core');
    const [a, b] = await replicas(() => new InMemoryKeyValueStore());
    try {
      const { back } = await loginAcross(a, b);
      expect(back.status).toBe(400);
      expect(back.html).toContain('invalid_request');
      expect(back.headers.get('location')).toBeNull();
      expect(a.issued() + b.issued()).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
