// The limit store's own Redis connection, on real redis-servers: replies in order under pipelining, replies
// cut anywhere by the network, error replies, AUTH and SELECT from the URL (a wrong password never
// printed), a Redis killed and restarted, a Redis that stops answering, and a graceful close.
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisLimitStore, redisLimitStore } from './index.js';
import { RedisReplyError, RespConnection, RespParser, type RespReply } from './resp-connection.js';
import { ensureInstalled, type RedisProcess, startRedis } from './test-infra.js';

let redis: RedisProcess;
const opened: { destroy(): void }[] = [];

beforeAll(async () => {
  ensureInstalled();
  redis = await startRedis();
});
afterAll(async () => {
  for (const connection of opened) connection.destroy();
  await redis?.stop();
});

function connection(url = redis.url, timeoutMs?: number): RespConnection {
  const made = new RespConnection(url, timeoutMs === undefined ? {} : { timeoutMs });
  made.on('error', () => {});
  opened.push(made);
  return made;
}

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('RespParser', () => {
  it('reads the same replies however the bytes are cut, one byte at a time included', () => {
    const wire = Buffer.from(
      '+OK\r\n-ERR wrong\r\n:-42\r\n:1700000000000\r\n$-1\r\n*-1\r\n$0\r\n\r\n' +
        '$9\r\nnœud ⚓\r\n' + // 9 bytes of UTF-8, cut inside a character by the one-byte pieces
        '*3\r\n:1\r\n*2\r\n$1\r\na\r\n$-1\r\n*0\r\n',
    );
    const expected = (replies: RespReply[]) => {
      expect(replies.slice(0, 1)).toEqual(['OK']);
      expect(replies[1]).toBeInstanceOf(RedisReplyError);
      expect((replies[1] as Error).message).toBe('ERR wrong');
      expect(replies.slice(2)).toEqual([
        -42,
        1_700_000_000_000,
        null,
        null,
        '',
        'nœud ⚓',
        [1, ['a', null], []],
      ]);
    };
    const whole: RespReply[] = [];
    new RespParser((reply) => whole.push(reply)).push(wire);
    expected(whole);
    const bytewise: RespReply[] = [];
    const parser = new RespParser((reply) => bytewise.push(reply));
    for (let index = 0; index < wire.length; index++) parser.push(wire.subarray(index, index + 1));
    expected(bytewise);
    for (let cut = 1; cut < wire.length; cut++) {
      const pieces: RespReply[] = [];
      const two = new RespParser((reply) => pieces.push(reply));
      two.push(wire.subarray(0, cut));
      two.push(wire.subarray(cut));
      expected(pieces);
    }
  });

  it('refuses bytes that are not RESP, naming the problem', () => {
    expect(() => new RespParser(() => {}).push(Buffer.from('?what\r\n'))).toThrow(/cannot read/);
    expect(() => new RespParser(() => {}).push(Buffer.from(':12x\r\n'))).toThrow(/malformed number/);
  });
});

describe('RespConnection on a real redis-server', () => {
  it('answers many commands in flight at once, each with its own reply, in order', async () => {
    const client = connection();
    await client.connect();
    const key = `pipelined:${Date.now()}`;
    const replies = await Promise.all(Array.from({ length: 500 }, () => client.send(['INCR', key])));
    expect(replies).toEqual(Array.from({ length: 500 }, (_, index) => index + 1));
    // A long value spans several TCP reads.
    const big = 'x'.repeat(300_000);
    await client.send(['SET', `${key}:big`, big]);
    expect(await client.send(['GET', `${key}:big`])).toBe(big);
  });

  it('fails the command Redis refuses and goes on with the next', async () => {
    const client = connection();
    await client.connect();
    const bad = client.send(['NOT-A-COMMAND']);
    const good = client.ping();
    await expect(bad).rejects.toThrow(/unknown command/i);
    expect(await good).toBe('PONG');
  });

  it('runs a script by its SHA-1 and sends it again as EVAL once Redis forgot it', async () => {
    const client = connection();
    await client.connect();
    const script = 'return {KEYS[1], ARGV[1], 7}';
    const sha = (await client.send(['SCRIPT', 'LOAD', script])) as string;
    expect(await client.evalScript(sha, script, ['k'], ['v'])).toEqual(['k', 'v', 7]);
    await client.send(['SCRIPT', 'FLUSH']);
    expect(await client.evalScript(sha, script, ['k2'], ['v2'])).toEqual(['k2', 'v2', 7]);
    // The EVAL cached it again.
    expect(await client.send(['SCRIPT', 'EXISTS', sha])).toEqual([1]);
  });

  it('authenticates and selects the database the URL names; a wrong password is reported, never printed', async () => {
    const secured = await startRedis(['--requirepass', 's3cr3t-pass']);
    try {
      const url = new URL(secured.url);
      url.password = 's3cr3t-pass';
      url.pathname = '/3';
      const client = connection(url.toString());
      await client.connect();
      await client.send(['SET', 'where', 'db3']);
      const admin = createClient({ url: url.toString() });
      await admin.connect();
      expect(await admin.get('where')).toBe('db3');
      await admin.select(0);
      expect(await admin.get('where')).toBeNull();
      await admin.close();

      url.password = 'wrong-pass-value';
      const wrong = new RespConnection(url.toString());
      opened.push(wrong);
      const errors: Error[] = [];
      wrong.on('error', (error: Error) => errors.push(error));
      wrong.connect().catch(() => undefined);
      await until(() => errors.some((error) => /WRONGPASS|invalid/i.test(error.message)), 'the AUTH error');
      expect(wrong.isReady).toBe(false);
      await expect(wrong.ping()).rejects.toThrow('not connected to Redis');
      for (const error of errors) expect(error.message).not.toContain('wrong-pass-value');
      wrong.destroy();
    } finally {
      await secured.stop();
    }
  });

  it('fails what was in flight when Redis dies, fails at once while it is down, and comes back with it', async () => {
    const local = await startRedis();
    try {
      const client = connection(local.url);
      await client.connect();
      await client.send(['SET', 'before', '1']);
      // A command still waiting for its reply when Redis is killed (BLPOP blocks for up to 5 s).
      const inFlight = client.send(['BLPOP', 'nothing-here', '5']).then(
        () => new Error('answered'),
        (error: Error) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      await local.kill();
      expect((await inFlight).message).toBe('the connection to Redis was lost before it answered');
      expect(client.isReady).toBe(false);
      expect(client.isOpen).toBe(true);
      await expect(client.ping()).rejects.toThrow('not connected to Redis');
      await local.restart();
      await until(() => client.isReady, 'reconnected');
      expect(await client.ping()).toBe('PONG');
    } finally {
      await local.stop();
    }
  });

  it('fails every waiting command after timeoutMs when Redis stops answering, then reconnects', async () => {
    const local = await startRedis();
    try {
      const client = connection(local.url, 300);
      await client.connect();
      local.signal('SIGSTOP');
      const started = Date.now();
      const waiting = [client.ping(), client.send(['GET', 'x'])];
      for (const command of waiting)
        await expect(command).rejects.toThrow('Redis did not answer within 300 ms');
      expect(Date.now() - started).toBeGreaterThanOrEqual(280);
      local.signal('SIGCONT');
      await until(() => client.isReady, 'reconnected after the stall');
      expect(await client.ping()).toBe('PONG');
    } finally {
      local.signal('SIGCONT');
      await local.stop();
    }
  });

  it('close() waits for the replies still awaited, then refuses commands', async () => {
    const client = connection();
    await client.connect();
    const slow = client.send(['BLPOP', 'nothing-here', '0.2']);
    await client.close();
    expect(await slow).toBeNull();
    expect(client.isOpen).toBe(false);
    await expect(client.ping()).rejects.toThrow('the connection is closed');
  });
});

describe('redisLimitStore on its own connection', () => {
  let stalled: RedisProcess;
  let store: RedisLimitStore;
  afterAll(async () => {
    await store?.close();
    stalled?.signal('SIGCONT');
    await stalled?.stop();
  });

  it('sends one EVALSHA a check and nothing else (INFO commandstats, counted by Redis)', async () => {
    const own = redisLimitStore({ url: redis.url, prefix: 'trips-own:' });
    await own.ready;
    const admin = new RespConnection(redis.url);
    opened.push(admin);
    await admin.connect();
    const counts = async (): Promise<Map<string, number>> => {
      const info = (await admin.send(['INFO', 'commandstats'])) as string;
      return new Map(
        [...info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)].map((match) => [
          match[1] as string,
          Number(match[2]),
        ]),
      );
    };
    const before = await counts();
    const checks = [
      { kind: 'rate' as const, key: 'bob', limit: 100, windowMs: 60_000, cost: 1 },
      { kind: 'quota' as const, key: 'bob', limit: 100, windowMs: 86_400_000, cost: 1 },
    ];
    for (let index = 0; index < 20; index++) await own.consume(checks);
    const after = await counts();
    const sent = [...after].filter(([name, calls]) => calls !== (before.get(name) ?? 0) && name !== 'info');
    // The script's own GET/HMGET/SET/… are counted under their names too: only EVALSHA came from the client.
    expect(after.get('evalsha')! - (before.get('evalsha') ?? 0)).toBe(20);
    expect(
      sent
        .map(([name]) => name)
        .filter((name) => !['get', 'hmget', 'set', 'hset', 'pexpireat', 'time'].includes(name)),
    ).toEqual(['evalsha']);
    await own.close();
  });

  it('fails a check after timeoutMs when Redis stops answering, and counts again once it answers', async () => {
    stalled = await startRedis();
    store = redisLimitStore({ url: stalled.url, timeoutMs: 250, prefix: 'stall:' });
    await store.ready;
    const check = [{ kind: 'rate' as const, key: 'alice', limit: 10, windowMs: 60_000, cost: 1 }];
    expect((await store.consume(check))[0]).toMatchObject({ allowed: true, remaining: 9 });
    stalled.signal('SIGSTOP');
    await expect(store.consume(check)).rejects.toMatchObject({
      code: 'REDIS_LIMIT_STORE_FAILED',
      message: 'limit store: consume failed: Redis did not answer within 250 ms',
    });
    stalled.signal('SIGCONT');
    // The stalled command may have run once Redis woke up: 8 or 7 left, never a fresh bucket.
    let outcome: Awaited<ReturnType<RedisLimitStore['consume']>> | undefined;
    const deadline = Date.now() + 10_000;
    while (outcome === undefined) {
      outcome = await store.consume(check).catch((error: unknown) => {
        if (Date.now() > deadline) throw error;
        return new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 50));
      });
    }
    expect(outcome[0]?.allowed).toBe(true);
    expect([7, 8]).toContain(outcome[0]?.remaining);
  });
});
