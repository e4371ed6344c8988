// Renders bench/RESULTS.md from one run's results: every figure with its spread, its ratio against
// the reference measured in the same run, and the issue's target next to it.

import { fixed, int, kib, mib, ms, range, ratioText } from './format.js';
import { SHAPE_SERVERS } from './harness/servers.js';
import { median, pairedRatios } from './harness/stats.js';
import type { BenchResults } from './results.js';
import { handKey, PATHS, SHAPES, serverOf, shapeKey } from './shapes.js';
import { targetSections, verdictText } from './targets.js';

export function renderReport(results: BenchResults): string {
  const { meta } = results;
  const lines: string[] = [
    '# Benchmark results',
    '',
    `Rewritten by \`${meta.command}\` on ${meta.date.slice(0, 16).replace('T', ' ')} UTC` +
      (meta.smoke ? ' — **smoke mode: 1 s per measurement, one run; these figures mean nothing**.' : '.'),
    '',
    `- Node ${meta.node}; ${meta.cpus} × ${meta.cpuModel}; load average ${meta.loadAverageBefore.map(fixed(2)).join(' ')} before, ` +
      `${meta.loadAverageAfter.map(fixed(2)).join(' ')} after (the two cores are shared by server, load generator and anything else running).`,
    `- ${meta.runs} run(s); each measurement ${meta.seconds} s after a ${meta.warmupSeconds} s warm-up, ${meta.connections} connections, ` +
      'autocannon in its own process; every server a fresh child process on 127.0.0.1 in each run.',
    '- Figures are medians of the runs, with the spread (min–max). Ratios are the median of per-run ratios ' +
      'against the reference measured in the same run (the machine drifts; ratios travel, absolute numbers do not).',
    `- Versions: ${Object.entries(meta.versions)
      .map(([name, version]) => `${name} ${version}`)
      .join(', ')}.`,
    '- Above a few thousand requests a second the load generator needs much of the two cores itself, which ' +
      'squeezes req/s ratios toward 1; the server CPU per request printed beside each ratio does not depend on it.',
    '- Where a target is missed, [PROFILE.md](./PROFILE.md) says where the time goes (written by hand from `pnpm profile`).',
    `- Whole run: ${meta.durationSeconds} s. Raw samples: \`bench/results/latest.json\` (not committed).`,
    '',
    ...targetSections(results).flatMap(({ title, intro, rows }) => [
      `## ${title}`,
      '',
      ...(intro === undefined ? [] : [intro, '']),
      '| target | figure | verdict |',
      '|---|---|---|',
      ...rows.map((row) => `| ${row.target} | ${row.figure} | ${verdictText(row)} |`),
      '',
    ]),
    ...toolCalls(results),
    ...shapes(results),
    ...instructions(results),
    ...health(results),
    ...coldStart(results),
    ...memory(results),
    ...stampede(results),
    ...footprint(results),
    ...notRun(results),
    ...correctness(results),
  ];
  return `${alignTables(lines).join('\n').trimEnd()}\n`;
}

/** Pads every table's cells to its column widths, as Biome formats Markdown (so `biome check` passes). */
function alignTables(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (!lines[i]!.startsWith('|')) {
      out.push(lines[i++]!);
      continue;
    }
    const rows: string[][] = [];
    while (i < lines.length && lines[i]!.startsWith('|')) {
      rows.push(
        lines[i++]!.slice(1, -1)
          .split('|')
          .map((cell) => cell.trim()),
      );
    }
    const widths = rows[0]!.map((_, c) =>
      Math.max(3, ...rows.filter((_, r) => r !== 1).map((row) => [...(row[c] ?? '')].length)),
    );
    for (const [r, row] of rows.entries()) {
      const cells = widths.map((width, c) =>
        r === 1 ? '-'.repeat(width) : (row[c] ?? '') + ' '.repeat(width - [...(row[c] ?? '')].length),
      );
      out.push(`| ${cells.join(' | ')} |`);
    }
  }
  return out;
}

function toolCalls(results: BenchResults): string[] {
  const lines = [
    `## tools/call \`echo\`, ${results.meta.connections} connections`,
    '',
    '"modern" is the 2026-07-28 request (per-request `_meta` envelope, no session); "legacy" is 2025-11-25 ' +
      '(stateless servers: `MCP-Protocol-Version` header only; sessionful servers: one session per connection, ' +
      'opened before the clock starts); "canned" is the ceiling, which answers any POST without parsing it; ' +
      '"input-required" is one round of the two-round exchange (below). The ratios are of req/s, each the ' +
      'median of per-run ratios against the same era on the SDK v2, on the hand-written server (`hand`), and ' +
      'against the canned answer.',
    '',
    '| server | era | req/s | spread | p50 ms | p99 ms | server CPU µs/call | vs SDK v2, same era | vs hand-written, same era | vs canned | errors, non-2xx |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const versus = (samples: readonly { rps: number }[], key: string): string => {
    const reference = results.throughput[key];
    return reference
      ? ratioText(
          pairedRatios(
            samples.map((s) => s.rps),
            reference.map((s) => s.rps),
          ),
        )
      : '';
  };
  // The tool shapes of issue 31 (another tool, or a server of their own) have their own table (below).
  const shapeServers = new Set(SHAPE_SERVERS.map((spec) => spec.id as string));
  for (const [key, samples] of Object.entries(results.throughput)) {
    if (key.includes(' GET ') || key.split(' ').length > 2 || shapeServers.has(key.split(' ')[0]!)) continue;
    const [id, era] = key.split(' ') as [string, string];
    const sameEra = era === 'modern' || era === 'legacy';
    const rps = samples.map((s) => s.rps);
    lines.push(
      `| ${labelOf(results, id)} | ${era} | ${int(median(rps))} | ${range(rps, int)} | ` +
        `${fixed(1)(median(samples.map((s) => s.p50Ms)))} | ${fixed(1)(median(samples.map((s) => s.p99Ms)))} | ` +
        `${int(median(samples.map((s) => s.cpuUsPerRequest)))} | ` +
        `${sameEra && id !== 'sdk-v2' ? versus(samples, `sdk-v2 ${era}`) : ''} | ` +
        `${sameEra && id !== 'hand' ? versus(samples, `hand ${era}`) : ''} | ` +
        `${id !== 'raw' ? versus(samples, 'raw canned') : ''} | ${errorsOf(samples)} |`,
    );
  }
  return [...lines, '', ...inputRequired(results)];
}

/** Issue 31's tool shapes on each path, beside the hand-written server and Pier's echo on that path. */
function shapes(results: BenchResults): string[] {
  const lines = [
    `## Tool shapes × paths (issue 31), ${results.meta.connections} connections`,
    '',
    'Each shape is a tools/call on a Pier server with one feature declared (src/shapes.ts, src/servers/pier.ts, ' +
      'src/servers/notes.ts): `echo_ctx` sends one log message and one progress notification (the client asks ' +
      'for both: `logLevel` and `progressToken` in the 2026-07-28 request, `logging/setLevel` once per 2025 ' +
      'session and a `progressToken`; a 2025 stateless client cannot set a level, and gets every level), so its ' +
      'answer is an SSE stream of three events; `echo_structured` declares an output schema; `echo_scoped` ' +
      'declares `scopes` on a server with `authPlugin()` + `jwt()` (ES256 token with the scope, the same token on ' +
      'every request: the verified-token cache warm); `pier-tasks` declares a task tool and a skills catalog ' +
      'beside echo; `pier-otel` runs `otelPlugin()` without an OpenTelemetry SDK, `pier-otel-sdk` with the SDK ' +
      "registered and exporting nowhere; `pier-mw` has three `use('*', (ctx, next) => next())`; `notes` is the " +
      'example app with three notes. Ratios are req/s, each the median of per-run ratios against `hand` and ' +
      'against Pier’s echo on the same path measured in the same run; "by CPU" compares server CPU per call ' +
      '(reference over shape: above 1 means the shape costs less).',
    '',
    '| shape | path | measured | req/s | spread | p50 ms | p99 ms | server CPU µs/call | vs hand-written | vs Pier’s echo | vs Pier’s echo, by CPU | errors, non-2xx |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const rps = (key: string): number[] => (results.throughput[key] ?? []).map((s) => s.rps);
  const cpu = (key: string): number[] => (results.throughput[key] ?? []).map((s) => s.cpuUsPerRequest);
  let any = false;
  for (const path of PATHS) {
    for (const shape of SHAPES) {
      const key = shapeKey(shape, path);
      const samples = results.throughput[key];
      if (samples === undefined) continue;
      any = true;
      const echoKey = shapeKey(SHAPES[0]!, path);
      lines.push(
        `| ${shape.label} | ${path.label} | \`${serverOf(shape, path)}\` ${shape.call.tool} | ${int(median(rps(key)))} | ` +
          `${range(rps(key), int)} | ${fixed(1)(median(samples.map((s) => s.p50Ms)))} | ` +
          `${fixed(1)(median(samples.map((s) => s.p99Ms)))} | ${int(median(cpu(key)))} | ` +
          `${ratioText(pairedRatios(rps(key), rps(handKey(path))))} | ` +
          `${key === echoKey ? '' : ratioText(pairedRatios(rps(key), rps(echoKey)))} | ` +
          `${key === echoKey ? '' : ratioText(pairedRatios(cpu(echoKey), cpu(key)))} | ${errorsOf(samples)} |`,
      );
    }
  }
  return any ? [...lines, ''] : [];
}

/** Instructions per call counted under callgrind, against Pier's echo on the same path. */
function instructions(results: BenchResults): string[] {
  const counted = results.instructions;
  if (counted === undefined) return [];
  const lines = [
    '## Instructions per call (callgrind)',
    '',
    'Each server run under valgrind’s callgrind once per run, warmed with 6,000 calls, then 4,000 counted over ' +
      '8 keep-alive connections: the server’s main thread (JavaScript, builtins, V8’s runtime, main-thread GC; ' +
      'not the JIT’s and GC helpers’ threads, whose share moves with the timing, nor the kernel’s socket work), a ' +
      'figure the load of a shared machine does not move, where CPU per call moves by ±20 %. It still moves ' +
      'between two counts of one unchanged server, by up to ±10 % (when V8’s background compiler finishes, ' +
      'when collections fall): read a single count’s ratio to within that. Stateless paths only.',
    '',
  ];
  if ('skipped' in counted) return [...lines, `Not counted: ${counted.skipped}.`, ''];
  lines.push('| shape | path | k instructions per call | vs Pier’s echo |', '|---|---|---|---|');
  for (const path of PATHS) {
    for (const shape of SHAPES) {
      const key = shapeKey(shape, path);
      const count = counted[key];
      if (count === undefined) continue;
      const echo = counted[shapeKey(SHAPES[0]!, path)];
      lines.push(
        `| ${shape.label} | ${path.label} | ${fixed(1)(count / 1000)} | ${echo === undefined || key === shapeKey(SHAPES[0]!, path) ? '' : `${fixed(3)(count / echo)}×`} |`,
      );
    }
  }
  return [...lines, ''];
}

/** The two-round exchange against a plain 2026-07-28 call on the same server, per run. */
function inputRequired(results: BenchResults): string[] {
  const rounds = results.throughput['pier-ask input-required'];
  const plain = results.throughput['pier-ask modern'];
  if (!rounds || !plain) return [];
  const cpu = (samples: readonly { cpuUsPerRequest: number }[]): number[] =>
    samples.map((s) => s.cpuUsPerRequest);
  const lines = [
    `## Input-required exchange (2026-07-28), ${results.meta.connections} connections`,
    '',
    'Every connection repeats the exchange: round one calls `confirm_echo` (it asks once with `ctx.elicit`) and is ' +
      'answered `input_required`; the load generator reads the `requestState` and the question key from that ' +
      'answer and sends round two with `{ action: "accept", content: { confirm: true } }`, answered with the echo ' +
      '(every answer checked; a wrong one counts as an error). Server CPU is per round (one HTTP request); an ' +
      'exchange is two rounds.',
    '',
    '| run | plain call µs | µs per round | µs per exchange | round / plain call | rounds/s | plain calls/s |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const [i, sample] of rounds.entries()) {
    const base = plain[i];
    if (!base) continue;
    lines.push(
      `| ${i + 1} | ${int(base.cpuUsPerRequest)} | ${int(sample.cpuUsPerRequest)} | ${int(2 * sample.cpuUsPerRequest)} | ` +
        `${fixed(2)(sample.cpuUsPerRequest / base.cpuUsPerRequest)}× | ${int(sample.rps)} | ${int(base.rps)} |`,
    );
  }
  const ratios = pairedRatios(cpu(rounds), cpu(plain));
  lines.push(
    `| median | ${int(median(cpu(plain)))} | ${int(median(cpu(rounds)))} | ${int(2 * median(cpu(rounds)))} | ` +
      `${ratioText(ratios)} | ${int(median(rounds.map((s) => s.rps)))} | ${int(median(plain.map((s) => s.rps)))} |`,
    '',
  );
  return lines;
}

function health(results: BenchResults): string[] {
  const lines = [
    `## Health endpoints, ${results.meta.connections} connections`,
    '',
    'Pier: `@pier/plugin-health` with one critical and one non-critical check (each 5 ms); /health/ready ' +
      'is served from its 1 s cache between evaluations. The ceiling answers a constant JSON body.',
    '',
    '| server | path | req/s | spread | p50 ms | p99 ms | server CPU µs/req | vs raw node:http |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const [key, samples] of Object.entries(results.throughput)) {
    if (!key.includes(' GET ')) continue;
    const [id, , path] = key.split(' ') as [string, string, string];
    const reference = results.throughput[`raw GET ${path}`];
    const versus =
      reference && id !== 'raw'
        ? ratioText(
            pairedRatios(
              samples.map((s) => s.rps),
              reference.map((s) => s.rps),
            ),
          )
        : '';
    lines.push(
      `| ${labelOf(results, id)} | ${path} | ${int(median(samples.map((s) => s.rps)))} | ${range(
        samples.map((s) => s.rps),
        int,
      )} | ` +
        `${fixed(1)(median(samples.map((s) => s.p50Ms)))} | ${fixed(1)(median(samples.map((s) => s.p99Ms)))} | ` +
        `${int(median(samples.map((s) => s.cpuUsPerRequest)))} | ${versus} |`,
    );
  }
  return [...lines, ''];
}

function coldStart(results: BenchResults): string[] {
  const raw = results.coldStart.raw;
  const lines = [
    '## Cold start: spawn to first 200',
    '',
    '`node --expose-gc <program>` forked by the harness, polled every 2 ms (bounded at 10 s).',
    '',
    '| server | to /health/live (ms) | spread | to ready (ms) | spread | ready vs raw node:http |',
    '|---|---|---|---|---|---|',
  ];
  for (const [id, sample] of Object.entries(results.coldStart)) {
    const versus = raw && id !== 'raw' ? ratioText(pairedRatios(sample.readyMs, raw.readyMs)) : '';
    lines.push(
      `| ${labelOf(results, id)} | ${ms(median(sample.liveMs))} | ${range(sample.liveMs, ms)} | ${ms(median(sample.readyMs))} | ` +
        `${range(sample.readyMs, ms)} | ${versus} |`,
    );
  }
  return [...lines, '', 'fastmcp has no separate live/ready paths: both columns are its `/health`.', ''];
}

function memory(results: BenchResults): string[] {
  const settleSeconds = (Object.values(results.memory)[0]?.[0]?.settleMs ?? 0) / 1_000;
  const lines = [
    '## Memory per idle 2025-era session',
    '',
    `A fresh server; 20 sessions to warm up; ${settleSeconds} s idle; forced GC; a reading. Then ` +
      `${results.meta.sessions} more sessions (\`initialize\` + \`notifications/initialized\`, 100 at a time): ` +
      `a reading right away (forced GC), and another after ${settleSeconds} s idle (forced GC) — the idle ` +
      'figure is the one compared with the target: right after the burst V8 still holds the heap pages it grew ' +
      'into, and its memory reducer gives them back once the process is idle, as a server holding idle sessions is. ' +
      'Differences divided by the number of sessions.',
    '',
    '| server | RSS per session, idle | spread | RSS per session, right after | heap used per session | spread | heap reserved per session | external per session | RSS after |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [id, samples] of Object.entries(results.memory)) {
    const rss = samples.map((s) => s.rssBytesPerSession);
    const heap = samples.map((s) => s.heapBytesPerSession);
    lines.push(
      `| ${labelOf(results, id)} | ${kib(median(rss))} | ${range(rss, kib)} | ` +
        `${kib(median(samples.map((s) => s.rssBytesPerSessionImmediate)))} | ${kib(median(heap))} | ${range(heap, kib)} | ` +
        `${kib(median(samples.map((s) => s.heapTotalBytesPerSession)))} | ${kib(median(samples.map((s) => s.externalBytesPerSession)))} | ` +
        `${mib(median(samples.map((s) => s.rssAfterBytes)))} |`,
    );
  }
  return [...lines, ''];
}

function stampede(results: BenchResults): string[] {
  if (results.stampede.length === 0) return [];
  return [
    '## Probe stampede',
    '',
    `${results.meta.probes} GET /health/ready against a fresh Pier server whose cache had expired: ` +
      'all connections opened first, then every request written at once; calls counted inside each check. ' +
      'The wall time is from the first write to the last answer.',
    '',
    '| run | calls per check | statuses | wall time |',
    '|---|---|---|---|',
    ...results.stampede.map(
      (s, i) =>
        `| ${i + 1} | ${JSON.stringify(s.callsPerCheck)} | ${JSON.stringify(s.statuses)} | ${ms(s.wallMs)} |`,
    ),
    '',
  ];
}

function footprint(results: BenchResults): string[] {
  const lines = ['## Install footprint', ''];
  if ('skipped' in results.footprint) return [...lines, `Skipped: ${results.footprint.skipped}.`, ''];
  lines.push(
    'Each package packed with `pnpm pack` (workspace ranges become real ones), the tarballs installed with ' +
      '`npm install` into an empty project (npm adds required peers, as it does for a user); every package ' +
      'folder in node_modules counted, the requested ones included.',
    '',
    '| install | packages | bytes in node_modules | the packages |',
    '|---|---|---|---|',
  );
  for (const entry of [results.footprint.pier, results.footprint.config]) {
    lines.push(
      `| ${entry.installs.join(' + ')} | ${entry.packages.length} | ${mib(entry.bytes)} | ${entry.packages.join(', ')} |`,
    );
  }
  return [...lines, ''];
}

function notRun(results: BenchResults): string[] {
  const skipped = results.servers.filter((s) => s.skipped !== undefined);
  return [
    '## Not measured',
    '',
    ...skipped.map((s) => `- ${s.label}: ${s.skipped}`),
    ...results.unavailablePeers.map((p) => `- \`${p.name}\`: ${p.reason}.`),
    '',
  ];
}

function correctness(results: BenchResults): string[] {
  const failed = results.verifications.filter((v) => !v.ok);
  return [
    '## Correctness',
    '',
    `Before measuring, each server answered every request shape it is loaded with (the echoed text checked) ` +
      `and its health paths: ${results.verifications.length - failed.length} of ${results.verifications.length} checks passed.`,
    ...failed.map((v) => `- **${v.server}, ${v.check}: ${v.detail}**`),
    '',
  ];
}

function labelOf(results: BenchResults, id: string): string {
  return results.servers.find((s) => s.id === id)?.label ?? id;
}

function errorsOf(samples: readonly { errors: number; timeouts: number; non2xx: number }[]): string {
  const errors = samples.reduce((sum, s) => sum + s.errors + s.timeouts, 0);
  const non2xx = samples.reduce((sum, s) => sum + s.non2xx, 0);
  return `${errors}, ${non2xx}`;
}
