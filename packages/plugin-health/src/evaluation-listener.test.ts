// healthPlugin(…).onEvaluation: what a metrics plugin reads the check results from — one call per run of the
// checks (never per probe answered from the cache), removable, and a throwing listener breaks no probe.
import { afterEach, expect, it } from 'vitest';
import { healthPlugin } from './plugin.js';
import { listenWith, type RunningPier } from './test-pier.js';

let running: RunningPier | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

it('hears every finished run of the checks until removed; a throwing listener is logged, not fatal', async () => {
  let status: 'healthy' | 'unhealthy' = 'healthy';
  const plugin = healthPlugin({
    cacheTtlMs: 60_000,
    checks: [{ name: 'database', critical: true, check: () => ({ status }) }],
  });
  const heard: string[] = [];
  const remove = plugin.onEvaluation((evaluation) => {
    heard.push(`${evaluation.status}:${evaluation.checks.map((check) => check.name).join(',')}`);
  });
  plugin.onEvaluation(() => {
    throw new Error('listener broke');
  });
  running = await listenWith([plugin]);
  expect((await fetch(`${running.base}/health`)).status).toBe(200);
  // Answered from the cache: no new run, nothing heard.
  expect((await fetch(`${running.base}/health`)).status).toBe(200);
  expect(heard).toEqual(['healthy:database']);
  expect(running.log.join('')).toMatch(/a health evaluation listener failed .*listener broke/);

  remove();
  status = 'unhealthy';
  await running.close();
  running = await listenWith([plugin]);
  expect((await fetch(`${running.base}/health`)).status).toBe(503);
  expect(heard).toEqual(['healthy:database']);
});
