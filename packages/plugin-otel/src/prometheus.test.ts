// The optional /metrics route: off by default, Prometheus text that promtool accepts, scraped by a real
// Prometheus (Debian's package, on a free loopback port, bounded in time, stopped by its PID) and queried
// through its HTTP API for the tool-call histogram.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { otelPlugin } from './index.js';
import { closeAll, connect, listen } from './test-otel.js';

afterEach(closeAll);

/** How long Prometheus gets to start and scrape the series (its own start takes ~1 s here). */
const SCRAPE_BOUND_MS = 60_000;

async function exercise(url: string): Promise<void> {
  const { client } = await connect(url, 'legacy');
  for (const text of ['a', 'b', 'c']) await client.callTool({ name: 'echo', arguments: { text } });
  await client.callTool({ name: 'login', arguments: { user: 'u', password: 'p' } });
  await client.callTool({ name: 'nope', arguments: {} }).catch(() => undefined);
}

async function scrape(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(new URL('/metrics', url), init);
}

describe('/metrics', () => {
  it('is not served unless asked for', async () => {
    const url = await listen([otelPlugin()]);
    expect((await scrape(url)).status).toBe(404);
  });

  it('serves the histograms and gauges in Prometheus text format that promtool accepts', async () => {
    const url = await listen([otelPlugin({ prometheus: true })]);
    await exercise(url);
    const answer = await scrape(url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await answer.text();
    expect(text).toContain('# TYPE mcp_server_operation_duration_seconds histogram');
    expect(text).toMatch(
      /^mcp_server_operation_duration_seconds_count\{gen_ai_operation_name="execute_tool",gen_ai_tool_name="echo",mcp_method_name="tools\/call",mcp_protocol_version="2025-11-25",network_protocol_name="http",network_transport="tcp"\} 3$/m,
    );
    expect(text).toMatch(
      /^mcp_server_operation_duration_seconds_count\{[^}]*error_type="tool_error"[^}]*\} 1$/m,
    );
    expect(text).toMatch(
      /^mcp_server_operation_duration_seconds_count\{[^}]*gen_ai_tool_name="_OTHER"[^}]*\} 1$/m,
    );
    expect(text).toMatch(/^pier_server_active_requests 0$/m);
    expect(text).not.toContain('nope');
    const check = spawnSync('promtool', ['check', 'metrics'], {
      input: text,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect({ status: check.status, output: `${check.stdout}${check.stderr}` }).toEqual({
      status: 0,
      output: '',
    });

    const head = await scrape(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('asks authorize() before answering a scrape', async () => {
    const url = await listen([
      otelPlugin({
        prometheus: {
          path: '/metrics',
          authorize: (request) => request.headers.get('authorization') === 'Bearer scraper',
        },
      }),
    ]);
    expect((await scrape(url)).status).toBe(401);
    const allowed = await scrape(url, { headers: { authorization: 'Bearer scraper' } });
    expect(allowed.status).toBe(200);
  });
});

describe('scraped by a real Prometheus', () => {
  let prometheus: ChildProcess | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    const child = prometheus;
    if (child?.pid !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid, 'SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null) process.kill(child.pid, 'SIGKILL');
    }
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('stores the tool-call histogram, queryable through its HTTP API', async () => {
    const url = await listen([otelPlugin({ prometheus: true })]);
    await exercise(url);
    const target = new URL(url).host;
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'pier-otel-prometheus-'));
    const config = join(dir, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        'scrape_configs:',
        '  - job_name: pier',
        '    scrape_interval: 1s',
        '    metrics_path: /metrics',
        '    static_configs:',
        `      - targets: ['${target}']`,
        '',
      ].join('\n'),
    );
    let log = '';
    const child = spawn(
      'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    prometheus = child;
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      log += chunk;
    });
    const api = `http://127.0.0.1:${port}/api/v1/query?query=`;
    const query = encodeURIComponent(
      'sum by (gen_ai_tool_name) (mcp_server_operation_duration_seconds_count{job="pier",mcp_method_name="tools/call"})',
    );
    const deadline = Date.now() + SCRAPE_BOUND_MS;
    let series: { metric: Record<string, string>; value: [number, string] }[] = [];
    while (Date.now() < deadline && child.exitCode === null) {
      try {
        const body = (await (await fetch(`${api}${query}`)).json()) as {
          data?: { result?: typeof series };
        };
        series = body.data?.result ?? [];
        if (series.length >= 3) break;
      } catch {
        // Not listening yet.
      }
      await sleep(250);
    }
    if (series.length < 3) {
      throw new Error(
        `Prometheus did not store the series within ${SCRAPE_BOUND_MS} ms (exit ${child.exitCode}); its log:\n${log}`,
      );
    }
    const counts = Object.fromEntries(series.map((s) => [s.metric.gen_ai_tool_name, s.value[1]]));
    expect(counts).toEqual({ echo: '3', login: '1', _OTHER: '1' });
    // The buckets make a real histogram: a quantile can be computed from them.
    const quantile = encodeURIComponent(
      'histogram_quantile(0.5, sum by (le) (mcp_server_operation_duration_seconds_bucket{gen_ai_tool_name="echo"}))',
    );
    const median = (await (await fetch(`${api}${quantile}`)).json()) as {
      data: { result: { value: [number, string] }[] };
    };
    const seconds = Number(median.data.result[0]?.value[1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(300);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}
