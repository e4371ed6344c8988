// Pier's own gauges through the real OpenTelemetry SDK's MetricReader and the /metrics route: open
// streams (a 2025 session's GET stream, a 2026-07-28 subscriptions/listen stream, opened by the official
// SDK client), tasks by status (raw 2026-07-28 requests: the SDK client does not implement the tasks
// extension) and health check results (healthPlugin's evaluations, probed over HTTP).
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createServer,
  defineResource,
  defineServer,
  defineTool,
  type PierPlugin,
  type PierServer,
} from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { httpTransport } from '@pier/transport-http';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { otelPlugin } from './index.js';
import { closeAll, connect, listen, telemetry } from './test-otel.js';

const servers: PierServer[] = [];
afterEach(async () => {
  await closeAll();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Polls `read` until it returns what `expected` says, for at most 10 s. */
async function until<T>(read: () => Promise<T>, expected: T, what: string): Promise<void> {
  let last: T | undefined;
  for (let attempt = 0; attempt < 200; attempt++) {
    last = await read();
    if (canonical(last) === canonical(expected)) return;
    await sleep(50);
  }
  throw new Error(`${what}: still ${JSON.stringify(last)}, expected ${JSON.stringify(expected)}`);
}

/** JSON with object keys sorted, so that the order points come in does not matter. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
      : inner,
  );
}

/** `{ attribute value: point value }` of one metric, keyed by the attribute `key`. */
function byAttribute(
  points: readonly { attributes: Record<string, unknown>; value: unknown }[],
  key: string,
): Record<string, unknown> {
  return Object.fromEntries(points.map((point) => [String(point.attributes[key]), point.value]));
}

function promtool(text: string): { status: number | null; output: string } {
  const check = spawnSync('promtool', ['check', 'metrics'], {
    input: text,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: check.status, output: `${check.stdout}${check.stderr}` };
}

describe('pier.server.active_streams', () => {
  it('counts a 2025 session GET stream and a 2026-07-28 listen stream while they are open', async () => {
    const otel = await telemetry();
    const url = await gaugeServer(
      [otelPlugin({ meterProvider: otel.meterProvider, traces: false, prometheus: true })],
      { sessions: true },
    );
    const streams = async () => {
      await otel.collect();
      return byAttribute(otel.points('pier.server.active_streams'), 'pier.stream.kind');
    };
    expect(await streams()).toEqual({});

    // The SDK client opens the session's GET stream on its own once initialized.
    const legacy = await connect(url, 'legacy');
    await until(streams, { session: 1 }, 'the GET stream');
    const modern = await connect(url, 'modern');
    const subscription = await modern.client.listen({ resourceSubscriptions: ['app://status'] });
    await until(streams, { session: 1, listen: 1 }, 'the listen stream');
    const text = await (await fetch(new URL('/metrics', url))).text();
    expect(text).toMatch(/^pier_server_active_streams\{pier_stream_kind="listen"\} 1$/m);
    expect(text).toMatch(/^pier_server_active_streams\{pier_stream_kind="session"\} 1$/m);
    expect(promtool(text)).toEqual({ status: 0, output: '' });

    await subscription.close();
    await until(streams, { session: 1, listen: 0 }, 'the listen stream closed');
    await legacy.transport.terminateSession();
    await until(streams, { session: 0, listen: 0 }, 'the session ended');
  });
});

const WITH_TASKS = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** A 2026-07-28 request over real HTTP, with the `_meta` envelope written out (the client of the tasks extension). */
async function modern(url: string, method: string, params: Record<string, unknown>, id: number) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof params.name === 'string' && { 'mcp-name': params.name }),
      ...(typeof params.taskId === 'string' && { 'mcp-name': params.taskId }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': WITH_TASKS,
          'io.modelcontextprotocol/clientInfo': { name: 'tasks-client', version: '1.0.0' },
        },
      },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  // JSON or one SSE `data:` line carrying the answer.
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  const answer = JSON.parse(json) as { result?: Record<string, unknown>; error?: unknown };
  if (answer.result === undefined) throw new Error(`${method} failed: ${text}`);
  return answer.result;
}

/** A server with task tools and a subscribable resource, over HTTP on 127.0.0.1. */
async function gaugeServer(
  plugins: PierPlugin[],
  { ttlMs = 60_000, sessions = false }: { ttlMs?: number; sessions?: boolean } = {},
): Promise<string> {
  const server = createServer(
    defineServer({
      name: 'otel-tasks',
      version: '1.0.0',
      tools: [
        defineTool({
          name: 'export',
          input: { items: z.number() },
          task: 'optional',
          handler: async ({ items }) => {
            await sleep(20);
            return `exported ${items}`;
          },
        }),
        defineTool({
          name: 'confirm',
          task: 'required',
          handler: async (_args, ctx) => {
            const answer = await ctx.elicit({
              message: 'Sure?',
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
            });
            return answer.action;
          },
        }),
      ],
      resources: [
        defineResource({ name: 'status', uri: 'app://status', subscribable: true, handler: () => 'ok' }),
      ],
    }),
    {
      handleSignals: false,
      logStream: { write: () => true },
      plugins,
      tasks: { ttlMs, pollIntervalMs: 50 },
    },
  );
  servers.push(server);
  return (await server.listen(httpTransport({ port: 0, sessions }))).url;
}

describe('pier.server.tasks', () => {
  it('counts tasks by status as they move: working, input_required, completed, cancelled', async () => {
    const otel = await telemetry();
    const url = await gaugeServer([
      otelPlugin({ meterProvider: otel.meterProvider, traces: false, prometheus: true }),
    ]);
    const statuses = async () => {
      await otel.collect();
      return byAttribute(otel.points('pier.server.tasks'), 'pier.task.status');
    };
    expect(await statuses()).toEqual({});

    const exported = await modern(url, 'tools/call', { name: 'export', arguments: { items: 3 } }, 1);
    expect(exported).toMatchObject({ resultType: 'task' });
    const parked = await modern(url, 'tools/call', { name: 'confirm', arguments: {} }, 2);
    await until(
      statuses,
      { working: 0, completed: 1, input_required: 1 },
      'one task completed, one waiting for input',
    );
    await modern(url, 'tasks/cancel', { taskId: parked.taskId }, 3);
    await until(
      statuses,
      { working: 0, completed: 1, input_required: 0, cancelled: 1 },
      'the waiting task cancelled',
    );
    const text = await (await fetch(new URL('/metrics', url))).text();
    expect(text).toMatch(/^pier_server_tasks\{pier_task_status="cancelled"\} 1$/m);
    expect(text).toMatch(/^pier_server_tasks\{pier_task_status="input_required"\} 0$/m);
    expect(promtool(text)).toEqual({ status: 0, output: '' });
  });

  it('drops a task from the gauge when the store forgets it (its TTL)', async () => {
    const otel = await telemetry();
    const url = await gaugeServer([otelPlugin({ meterProvider: otel.meterProvider, traces: false })], {
      ttlMs: 400,
    });
    const statuses = async () => {
      await otel.collect();
      return byAttribute(otel.points('pier.server.tasks'), 'pier.task.status');
    };
    await modern(url, 'tools/call', { name: 'export', arguments: { items: 1 } }, 1);
    // Completed, then gone after its 400 ms: the gauge never stays above what the store holds.
    await until(statuses, { working: 0, completed: 0 }, 'the task expired');
  });
});

describe('pier.health.check.status', () => {
  it('is 1 for each check’s latest status and 0 for its others, updated by every run of the checks', async () => {
    const otel = await telemetry();
    let database: 'healthy' | 'unhealthy' = 'healthy';
    const health = healthPlugin({
      cacheTtlMs: 0,
      checks: [
        { name: 'database', critical: true, check: () => ({ status: database }) },
        { name: 'cache', critical: false, check: () => ({ status: 'degraded' }) },
      ],
    });
    const url = await listen([
      health,
      otelPlugin({ meterProvider: otel.meterProvider, traces: false, prometheus: true, health }),
    ]);
    const results = async () => {
      await otel.collect();
      return Object.fromEntries(
        otel
          .points('pier.health.check.status')
          .map((point) => [
            `${point.attributes['pier.health.check.name']}/${point.attributes['pier.health.check.status']}`,
            point.value,
          ]),
      );
    };
    // Nothing is reported before the checks ran.
    expect(await results()).toEqual({});

    expect((await fetch(new URL('/health', url))).status).toBe(200);
    expect(await results()).toEqual({
      'database/healthy': 1,
      'database/degraded': 0,
      'database/unhealthy': 0,
      'cache/healthy': 0,
      'cache/degraded': 1,
      'cache/unhealthy': 0,
    });

    database = 'unhealthy';
    expect((await fetch(new URL('/health', url))).status).toBe(503);
    const after = await results();
    expect([after['database/healthy'], after['database/unhealthy']]).toEqual([0, 1]);
    const text = await (await fetch(new URL('/metrics', url))).text();
    expect(text).toMatch(
      /^pier_health_check_status\{pier_health_check_name="database",pier_health_check_status="unhealthy"\} 1$/m,
    );
    expect(promtool(text)).toEqual({ status: 0, output: '' });
  });

  it('is absent without the health option, even with healthPlugin installed', async () => {
    const otel = await telemetry();
    const health = healthPlugin({
      checks: [{ name: 'database', critical: true, check: () => ({ status: 'healthy' }) }],
    });
    const url = await listen([health, otelPlugin({ meterProvider: otel.meterProvider, traces: false })]);
    expect((await fetch(new URL('/health', url))).status).toBe(200);
    await otel.collect();
    expect(otel.points('pier.health.check.status')).toEqual([]);
  });
});
