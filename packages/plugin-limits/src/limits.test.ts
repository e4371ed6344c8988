// The limits plugin in one process over real HTTP, with the official SDK clients (v2 in both eras,
// stateless and with sessions; v1) and raw requests: tool limits answer a tool error the model reads,
// other limits a 429 with Retry-After before the handler runs, the budget left is in RateLimit headers,
// bursts at the boundary admit exactly the limit, and discovery is never refused.
import { InMemoryLimitStore, PierError } from '@pier/core';
import { afterEach, describe, expect, it } from 'vitest';
import { LIMIT_EXCEEDED, LIMIT_META_KEY, LimitsPluginError, limitsPlugin } from './index.js';
import {
  bearerAuth,
  type ClientKind,
  closeAll,
  connect,
  legacy,
  modern,
  releaseSlowCalls,
  runs,
  serve,
  textOf,
} from './test-server.js';

afterEach(closeAll);

const addNoteLimit = (limit: number) =>
  limitsPlugin({
    rules: [{ name: 'add-note', key: 'principal', tools: 'add_note', rate: { limit, windowMs: 60_000 } }],
  });

describe('a tool limit', () => {
  it('admits N calls over raw HTTP, then answers a tool error naming the limit and when to retry', async () => {
    const url = await serve([addNoteLimit(3)]);
    const answers = [];
    for (let call = 0; call < 4; call++) {
      answers.push(await modern(url, 'tools/call', { name: 'add_note', arguments: {} }));
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((answer) => answer.headers.get('ratelimit-policy'))).toEqual(
      Array(4).fill('"add-note";q=3;w=60'),
    );
    expect(answers.map((answer) => answer.headers.get('ratelimit')?.replace(/;t=\d+/, ''))).toEqual([
      '"add-note";r=2',
      '"add-note";r=1',
      '"add-note";r=0',
      '"add-note";r=0',
    ]);
    const refused = answers[3]?.body.result as Record<string, unknown>;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^Rate limit "add-note" reached \(3 calls per minute per principal\); retry in (19|20) s\.$/,
    );
    expect(refused._meta).toMatchObject({
      [LIMIT_META_KEY]: {
        limit: 'add-note',
        kind: 'rate',
        reason: 'exceeded',
        retryAfter: expect.any(Number),
        resetAt: expect.any(String),
      },
    });
    expect(answers[3]?.headers.get('retry-after')).toMatch(/^(19|20)$/);
    expect(runs.add_note).toBe(3);
    // Other tools are not counted by it.
    expect((await modern(url, 'tools/call', { name: 'echo', arguments: {} })).headers.has('ratelimit')).toBe(
      false,
    );
  });

  it.each([
    ['v2-modern', false],
    ['v2-legacy', false],
    ['v2-legacy', true],
    ['v1', true],
  ] as [ClientKind, boolean][])(
    'admits exactly N calls from the %s client (sessions: %s)',
    async (kind, sessions) => {
      const url = await serve([addNoteLimit(2)], { sessions });
      const client = await connect(url, kind);
      const results = [];
      for (let call = 0; call < 3; call++) results.push(await client.callTool('add_note'));
      expect(results.map((result) => result.isError === true)).toEqual([false, false, true]);
      expect(textOf(results[2])).toMatch(/Rate limit "add-note" reached .*; retry in \d+ s\./);
      expect(runs.add_note).toBe(2);
    },
  );

  it('reports the budget left on a 2025 answer too, one field each, beside its JSON body', async () => {
    const url = await serve([addNoteLimit(3)]);
    const first = await legacy(url, 'tools/call', { name: 'add_note', arguments: {} });
    const second = await legacy(url, 'tools/call', { name: 'add_note', arguments: {} });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get('ratelimit-policy')).toBe('"add-note";q=3;w=60');
    expect(second.headers.get('ratelimit')).toMatch(/^"add-note";r=1;t=\d+$/);
    expect(second.headers.get('content-type')).toBe('application/json');
    expect(second.body).toMatchObject({ result: { content: [{ type: 'text' }] } });
  });

  it('keys by principal: each caller has a budget of its own', async () => {
    const url = await serve([bearerAuth, addNoteLimit(1)]);
    const call = (who: string) =>
      modern(url, 'tools/call', { name: 'add_note', arguments: {} }, { authorization: `Bearer ${who}` });
    const outcomes = [await call('alice'), await call('bob'), await call('alice'), await call('bob')];
    expect(outcomes.map((answer) => (answer.body.result as { isError?: boolean }).isError === true)).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });

  it('keys by OAuth client: users of one client share its budget, which principal keys would not', async () => {
    const byClient = limitsPlugin({
      rules: [{ name: 'per-client', key: 'client', tools: 'add_note', rate: { limit: 2, windowMs: 60_000 } }],
    });
    const url = await serve([bearerAuth, byClient]);
    const call = (token: string) =>
      modern(url, 'tools/call', { name: 'add_note', arguments: {} }, { authorization: `Bearer ${token}` });
    const refused = async (token: string) =>
      ((await call(token)).body.result as { isError?: boolean }).isError === true;
    // alice and bob both use the app "notes": its budget of 2 is spent by the two of them together.
    expect([await refused('alice@notes'), await refused('bob@notes'), await refused('carol@notes')]).toEqual([
      false,
      false,
      true,
    ]);
    // Another client has a budget of its own.
    expect(await refused('alice@cli')).toBe(false);
    // Control: keyed by principal, the same calls are each a first call of their caller.
    await closeAll();
    const byPrincipal = await serve([
      bearerAuth,
      limitsPlugin({
        rules: [
          { name: 'per-user', key: 'principal', tools: 'add_note', rate: { limit: 2, windowMs: 60_000 } },
        ],
      }),
    ]);
    const again = (token: string) =>
      modern(
        byPrincipal,
        'tools/call',
        { name: 'add_note', arguments: {} },
        { authorization: `Bearer ${token}` },
      );
    const answers = [await again('alice@notes'), await again('bob@notes'), await again('carol@notes')];
    expect(answers.map((answer) => (answer.body.result as { isError?: boolean }).isError === true)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('a concurrent burst at the boundary admits exactly the limit', async () => {
    const url = await serve([addNoteLimit(10)]);
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => modern(url, 'tools/call', { name: 'add_note', arguments: {} })),
    );
    const admitted = answers.filter(
      (answer) => (answer.body.result as { isError?: boolean }).isError !== true,
    );
    expect(admitted).toHaveLength(10);
    expect(runs.add_note).toBe(10);
  });

  it('matches tools by annotation and weighs them by cost', async () => {
    const url = await serve([
      limitsPlugin({
        rules: [{ name: 'writes', key: 'server', annotations: { readOnlyHint: false }, quota: { limit: 5 } }],
        costs: { export: 3 },
      }),
    ]);
    const call = async (name: string) => {
      const answer = await modern(url, 'tools/call', { name, arguments: {} });
      return {
        error: (answer.body.result as { isError?: boolean }).isError === true,
        rateLimit: answer.headers.get('ratelimit'),
      };
    };
    // Read-only tools are not counted.
    for (let i = 0; i < 6; i++) expect((await call('echo')).error).toBe(false);
    expect(await call('export')).toMatchObject({
      error: false,
      rateLimit: expect.stringMatching(/^"writes";r=2;t=\d+$/),
    });
    expect((await call('export')).error).toBe(true);
    expect((await call('add_note')).error).toBe(false);
    expect((await call('add_note')).error).toBe(false);
    expect((await call('add_note')).error).toBe(true);
    const answer = await modern(url, 'tools/call', { name: 'add_note', arguments: {} });
    expect(textOf(answer.body.result as Record<string, unknown>)).toMatch(
      /^Quota "writes" reached \(5 calls per day \(UTC\) for the whole server\); retry in (\d+ h( \d+ min)?|\d+ min|\d+ s)\.$/,
    );
  });

  it('a concurrency cap counts calls in flight and gives their slots back', async () => {
    const store = new InMemoryLimitStore();
    const url = await serve([
      limitsPlugin({
        store,
        rules: [{ name: 'slow', key: 'server', tools: 'slow', concurrency: { limit: 2 } }],
      }),
    ]);
    const running = [
      modern(url, 'tools/call', { name: 'slow', arguments: {} }),
      modern(url, 'tools/call', { name: 'slow', arguments: {} }),
    ];
    for (let waited = 0; (runs.slow ?? 0) < 2 && waited < 5_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const third = await modern(url, 'tools/call', { name: 'slow', arguments: {} });
    expect(textOf(third.body.result as Record<string, unknown>)).toBe(
      'Concurrency limit "slow" reached (at most 2 calls in flight for the whole server); retry in 1 s.',
    );
    expect(third.headers.get('ratelimit')).toBe('"slow";r=0');
    expect(third.headers.get('ratelimit-policy')).toBe('"slow";q=2;qu="concurrent-requests"');
    releaseSlowCalls();
    const done = await Promise.all(running);
    expect(done.map((answer) => textOf(answer.body.result as Record<string, unknown>))).toEqual([
      'slow done',
      'slow done',
    ]);
    expect(store.size).toBe(0);
    const fourth = modern(url, 'tools/call', { name: 'slow', arguments: {} });
    for (let waited = 0; (runs.slow ?? 0) < 3 && waited < 5_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    releaseSlowCalls();
    expect(textOf((await fourth).body.result as Record<string, unknown>)).toBe('slow done');
  });
});

describe('a limit on the server or its methods', () => {
  const serverLimit = () =>
    limitsPlugin({ rules: [{ name: 'server', key: 'server', rate: { limit: 3, windowMs: 60_000 } }] });

  it('refuses with 429, Retry-After and a JSON-RPC error before the handler runs, in both eras', async () => {
    const url = await serve([serverLimit()]);
    const spent = [];
    for (let call = 0; call < 3; call++) spent.push(await modern(url, 'tools/list'));
    expect(spent.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const refusedModern = await modern(url, 'tools/call', { name: 'add_note', arguments: {} });
    expect(refusedModern.status).toBe(429);
    expect(refusedModern.headers.get('retry-after')).toMatch(/^(19|20)$/);
    expect(refusedModern.headers.get('ratelimit')).toMatch(/^"server";r=0;t=\d+$/);
    expect(refusedModern.body.error).toEqual({
      code: LIMIT_EXCEEDED,
      message: expect.stringMatching(
        /^Rate limit "server" reached \(3 requests per minute for the whole server\); retry in (19|20) s\.$/,
      ),
      data: {
        limit: 'server',
        kind: 'rate',
        reason: 'exceeded',
        retryAfter: expect.any(Number),
        resetAt: expect.any(String),
      },
    });
    expect(runs.add_note).toBeUndefined();
    const refusedLegacy = await legacy(url, 'tools/call', { name: 'add_note', arguments: {} });
    expect(refusedLegacy.status).toBe(429);
    expect(refusedLegacy.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refusedLegacy.body.error).toMatchObject({ code: LIMIT_EXCEEDED, data: { limit: 'server' } });
    expect(runs.add_note).toBeUndefined();
  });

  it('never hides that the server exists: discovery and initialize answer; a spent list is an error, not an empty list', async () => {
    const url = await serve([serverLimit()], { sessions: true });
    for (let call = 0; call < 3; call++) await modern(url, 'tools/list');
    // server/discover (2026-07-28) and initialize (2025) are never counted: clients still connect.
    for (const kind of ['v2-modern', 'v2-legacy', 'v1'] as const) {
      const client = await connect(url, kind);
      // The SDK clients surface a non-2xx answer as a transport error quoting the body (its JSON-RPC error).
      await expect(client.listTools()).rejects.toThrow(/Rate limit \\?"server\\?" reached/);
    }
    const discover = await modern(url, 'server/discover');
    expect(discover.status).toBe(200);
    expect(discover.headers.has('ratelimit')).toBe(false);
  });

  it('keys by IP address (the socket’s, or what clientIp reads)', async () => {
    const url = await serve([
      limitsPlugin({
        rules: [{ name: 'per-ip', key: 'ip', methods: 'tools/list', rate: { limit: 1, windowMs: 60_000 } }],
        clientIp: (ctx) => ctx.header('x-test-ip') ?? ctx.remoteAddress,
      }),
    ]);
    const list = (ip?: string) => modern(url, 'tools/list', {}, ip === undefined ? {} : { 'x-test-ip': ip });
    expect((await list('10.0.0.1')).status).toBe(200);
    expect((await list('10.0.0.2')).status).toBe(200);
    expect((await list('10.0.0.1')).status).toBe(429);
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(429);
  });
});

describe('limitsPlugin options', () => {
  it('refuses bad rules at the call: every problem at once, each with its option path', () => {
    let thrown: unknown;
    try {
      limitsPlugin({
        rules: [
          { name: 'bad name', key: 'principal', rate: { limit: 0, windowMs: 60_000 } },
          { name: 'both', key: 'everyone' as never, rate: { limit: 1, windowMs: 1 }, quota: { limit: 1 } },
          { name: 'init', key: 'server', methods: ['initialize'], concurrency: { limit: 1 } },
          {
            name: 'tools',
            key: 'server',
            tools: 'x',
            methods: 'tools/list',
            rate: { limit: 1, windowMs: 1_000 },
          },
          {
            name: 'tools',
            key: 'server',
            rate: { limit: 1, windowMs: 1_000 },
            onStoreError: 'maybe' as never,
          },
          { name: 'a', key: 'server', rate: { limit: 1, windowMs: 1_000 } },
          { name: 'a', key: 'server', rate: { limit: 1, windowMs: 1_000 } },
        ],
        costs: { export: 0 },
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LimitsPluginError);
    expect(PierError.isInstance(thrown)).toBe(true);
    const error = thrown as LimitsPluginError;
    expect(error.code).toBe('LIMITS_OPTIONS_INVALID');
    expect(error.issues).toEqual([
      'rules[0].name must be 1–64 of A-Z a-z 0-9 _ . - (got "bad name")',
      'rules[0].rate.limit must be a whole number ≥ 1 (got 0)',
      "rules[1].key must be 'principal', 'client', 'ip', 'server' or a function (got \"everyone\")",
      'rules[1] must have exactly one of rate, quota and concurrency (got rate and quota)',
      'rules[2].methods: initialize cannot be limited (a client must always be able to find the server)',
      'rules[3].methods: a rule with tools or annotations counts tools/call only; drop methods',
      "rules[4].onStoreError must be 'open' or 'closed' (got \"maybe\")",
      'rules[6].name "a" is already the name of rules[5]',
      'costs["export"] must be a whole number ≥ 1 (got 0)',
    ]);
    expect(error.message).toBe(
      `limitsPlugin(): ${error.issues.length} problems:\n${error.issues.map((issue) => `  - ${issue}`).join('\n')}`,
    );
    expect(() => limitsPlugin(undefined as never)).toThrow(
      'limitsPlugin(): options must be an object { rules, store?, costs?, clientIp?, headers? } (got nothing)',
    );
    expect(() =>
      limitsPlugin({ rules: [{ name: 'q', key: 'ip', quota: { limit: 1, windowMs: -1 } }] }),
    ).toThrow('limitsPlugin(): rules[0].quota.windowMs must be a whole number of ms ≥ 1 (got -1)');
  });
});
