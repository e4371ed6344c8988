// CI keeps the harness from rotting: the whole benchmark in smoke mode (1 s per measurement, one
// run), then what it recorded. No timing is asserted — only that every server answered correctly
// and that every measurement produced its figures and the report.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChartData } from './charts.js';
import { SHAPE_SERVERS } from './harness/servers.js';
import type { BenchResults } from './results.js';
import { PATHS, SHAPES, serverOf } from './shapes.js';

const RUN = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'run.js');
const scratch = mkdtempSync(join(tmpdir(), 'pier-bench-smoke-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('pnpm bench --smoke', () => {
  it('runs every server and measurement and writes the report', { timeout: 240_000 }, async () => {
    const out = join(scratch, 'RESULTS.md');
    const json = join(scratch, 'results.json');
    // Rejects on a non-zero exit, which the run uses for any failed correctness check.
    await promisify(execFile)(process.execPath, [RUN, '--smoke', '--out', out, '--json', json], {
      timeout: 230_000,
    });
    const results = JSON.parse(readFileSync(json, 'utf8')) as BenchResults;

    const ran = results.servers.filter((s) => s.skipped === undefined).map((s) => s.id);
    const shapeServers: string[] = SHAPE_SERVERS.map((s) => s.id);
    expect(ran).toEqual(
      expect.arrayContaining([
        'raw',
        'hand',
        'sdk-v2',
        'sdk-v1',
        'pier',
        'pier-sessions',
        'pier-ask',
        ...shapeServers,
      ]),
    );
    expect(results.verifications.filter((v) => !v.ok)).toEqual([]);
    for (const id of ran) {
      const checks = results.verifications.filter((v) => v.server === id).map((v) => v.check);
      expect(checks, id).toContainEqual(expect.stringMatching(/^tools\/call (echo|list_notes)/));
      expect(checks, id).toContain('GET /health');
      // pier-ask and the tool shapes' servers are started only to be loaded: not cold-started.
      const loadedOnly = id === 'pier-ask' || shapeServers.includes(id);
      expect(results.coldStart[id]?.readyMs.length, id).toBe(loadedOnly ? undefined : 1);
    }
    // Every cell of issue 31's matrix answered as its shape must (the ctx shape's log message and progress
    // included), in the first round.
    for (const shape of SHAPES) {
      for (const path of PATHS) {
        const server = serverOf(shape, path);
        expect(
          results.verifications.some(
            (v) => v.server === server && v.check === `tools/call ${shape.call.tool} (${path.era})`,
          ),
          `${shape.id} ${path.id}`,
        ).toBe(true);
      }
    }

    const loads = Object.entries(results.throughput);
    expect(loads.map(([key]) => key)).toEqual(
      expect.arrayContaining([
        'pier modern',
        'pier legacy',
        'pier-sessions legacy',
        'sdk-v2 modern',
        'raw canned',
        'hand modern',
        'hand legacy',
        'pier-ask modern',
        'pier-ask input-required',
        // A smoke run loads part of the tool-shape matrix: each shape and each path at least once.
        'pier modern echo_ctx',
        'pier-sessions legacy echo_ctx',
        'pier legacy echo_structured',
        'pier-auth-sessions legacy echo_scoped',
        'pier-tasks modern',
        'pier-otel legacy',
        'pier-otel-sdk modern',
        'pier-mw legacy',
        'notes-sessions legacy list_notes',
      ]),
    );
    for (const [key, [sample]] of loads) {
      expect(sample?.requests, key).toBeGreaterThan(0);
      expect({ key, errors: sample?.errors, timeouts: sample?.timeouts, non2xx: sample?.non2xx }).toEqual({
        key,
        errors: 0,
        timeouts: 0,
        non2xx: 0,
      });
    }
    expect(Object.keys(results.memory)).toEqual(expect.arrayContaining(['sdk-v1', 'pier-sessions']));
    expect(results.stampede[0]?.statuses).toEqual({ 200: results.meta.probes });

    const report = readFileSync(out, 'utf8');
    expect(report).toContain('## Targets (issue 6)');
    expect(report).toContain('## Targets (issue 16, performance)');
    expect(report).toContain('## Targets (issue 22)');
    expect(report).toContain('## Targets (issue 31)');
    expect(report).toContain('## Tool shapes × paths (issue 31)');
    expect(report).toContain('## Input-required exchange (2026-07-28)');
    expect(report).toContain('smoke mode');
    expect(report).not.toContain('NaN');

    // The charts of the performance page, beside the report: one SVG per scenario, drawn from data.json.
    const charts = JSON.parse(readFileSync(join(scratch, 'charts', 'data.json'), 'utf8')) as ChartData;
    expect(charts.charts.map((chart) => chart.id)).toEqual(
      expect.arrayContaining([
        'tools-call-throughput',
        'tools-call-cpu',
        'health',
        'cold-start',
        'session-memory',
        'tool-shapes',
      ]),
    );
    for (const chart of charts.charts) {
      const svg = readFileSync(join(scratch, 'charts', `${chart.id}.svg`), 'utf8');
      expect(svg, chart.id).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      expect(svg, chart.id).not.toContain('NaN');
      for (const bar of chart.groups.flatMap((group) => group.bars))
        expect(svg, chart.id).toContain(bar.label);
    }
    const throughput = charts.charts.find((chart) => chart.id === 'tools-call-throughput');
    expect(throughput?.groups.flatMap((group) => group.bars.map((bar) => bar.kind))).toEqual(
      expect.arrayContaining(['pier', 'sdk', 'ceiling']),
    );
  });
});
