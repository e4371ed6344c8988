// Limit decisions of @pier/plugin-limits as metrics, through the real OpenTelemetry SDK's MetricReader and
// the /metrics route: refusals by limit and reason, decisions made without the store by failure mode, and
// the store's availability. The store is a LimitStore whose reachability the test switches (the Redis
// outage itself is tested in plugin-limits against a real redis-server).
import { spawnSync } from 'node:child_process';
import { InMemoryLimitStore, type LimitCheck } from '@pier/core';
import { limitsPlugin } from '@pier/plugin-limits';
import { afterEach, expect, it } from 'vitest';
import { otelPlugin } from './index.js';
import { closeAll, connect, listen, telemetry } from './test-otel.js';

afterEach(closeAll);

/** The in-memory store, unreachable while `down` is set. */
class SwitchableStore extends InMemoryLimitStore {
  down = false;
  override consume(checks: readonly LimitCheck[]) {
    if (this.down) throw new Error('connection refused');
    return super.consume(checks);
  }
}

it('counts refusals by limit and reason, store errors by failure mode, and the store’s availability', async () => {
  const otel = await telemetry();
  const store = new SwitchableStore();
  const limits = limitsPlugin({
    store,
    rules: [
      { name: 'echoes', key: 'server', tools: 'echo', rate: { limit: 1, windowMs: 60_000 } },
      {
        name: 'lists',
        key: 'server',
        methods: 'tools/list',
        rate: { limit: 100, windowMs: 60_000 },
        onStoreError: 'closed',
      },
    ],
  });
  const url = await listen([
    limits,
    otelPlugin({ meterProvider: otel.meterProvider, traces: false, prometheus: true, limits }),
  ]);
  const { client } = await connect(url, 'modern');
  await client.callTool({ name: 'echo', arguments: { text: 'a' } });
  expect((await client.callTool({ name: 'echo', arguments: { text: 'b' } })).isError).toBe(true);
  store.down = true;
  await client.callTool({ name: 'echo', arguments: { text: 'c' } });
  await expect(client.listTools()).rejects.toThrow(/cannot be checked right now/);

  await otel.collect();
  const simplify = (name: string) =>
    otel
      .points(name)
      .map((point) => ({ ...point.attributes, value: point.value }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  expect(simplify('pier.limit.refusals')).toEqual([
    { 'pier.limit.rule': 'echoes', 'pier.limit.reason': 'exceeded', value: 1 },
    { 'pier.limit.rule': 'lists', 'pier.limit.reason': 'unavailable', value: 1 },
  ]);
  expect(simplify('pier.limit.store.errors')).toEqual([
    { 'pier.limit.rule': 'echoes', 'pier.limit.failure_mode': 'open', value: 1 },
    { 'pier.limit.rule': 'lists', 'pier.limit.failure_mode': 'closed', value: 1 },
  ]);
  expect(simplify('pier.limit.store.available')).toEqual([{ value: 0 }]);

  const text = await (await fetch(new URL('/metrics', url))).text();
  expect(text).toMatch(
    /^pier_limit_refusals_total\{pier_limit_reason="exceeded",pier_limit_rule="echoes"\} 1$/m,
  );
  expect(text).toMatch(
    /^pier_limit_store_errors_total\{pier_limit_failure_mode="closed",pier_limit_rule="lists"\} 1$/m,
  );
  expect(text).toMatch(/^pier_limit_store_available 0$/m);
  const check = spawnSync('promtool', ['check', 'metrics'], {
    input: text,
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (check.error === undefined) expect(`${check.stdout}${check.stderr}`).toBe('');

  store.down = false;
  await client.listTools();
  await otel.collect();
  expect(simplify('pier.limit.store.available')).toEqual([{ value: 1 }]);
});

it('refuses a limits option without onEvent', () => {
  expect(() => otelPlugin({ limits: {} as never })).toThrow(
    /limits must have onEvent\(\) \(pass the limitsPlugin\(…\) you install\)/,
  );
});
