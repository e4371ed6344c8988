// Side-by-side charts of a run (SVG, written by hand: no chart library), for the docs' performance page.
// `chartData` keeps only what the charts show — per scenario, each server's median and its spread across
// runs — so that it can be committed (bench/charts/data.json) while the raw samples are not; `renderCharts`
// draws one SVG per scenario from it. `pnpm bench` and render.ts write both next to RESULTS.md;
// `node dist/charts.js` redraws the SVGs from the committed data.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { median, pairedRatios, spread } from './harness/stats.js';
import type { BenchResults } from './results.js';
import { handKey, PATHS, SHAPES, shapeKey } from './shapes.js';

/** Who a bar is: Pier, the bare SDK it is built on, a peer framework, or a ceiling without MCP framework. */
export type BarKind = 'pier' | 'sdk' | 'peer' | 'ceiling';

export interface Bar {
  readonly label: string;
  readonly kind: BarKind;
  readonly value: number;
  readonly min: number;
  readonly max: number;
}

export interface Chart {
  /** The SVG's file name without `.svg`. */
  readonly id: string;
  readonly title: string;
  /** The unit of the values, as printed after them (`req/s`, `µs`). */
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  /** Decimals of the printed values (default: none from 10 up, one below). */
  readonly decimals?: number;
  /** A dashed vertical line across the plot: a target. */
  readonly mark?: { readonly value: number; readonly label: string };
  readonly groups: readonly { readonly label: string; readonly bars: readonly Bar[] }[];
}

export interface ChartData {
  readonly meta: {
    readonly date: string;
    readonly node: string;
    readonly machine: string;
    readonly method: string;
    /** Where the figures come from (the run, or the report they were read from). */
    readonly source: string;
  };
  readonly charts: readonly Chart[];
}

const SHORT: Record<string, { readonly label: string; readonly kind: BarKind }> = {
  raw: { label: 'node:http, canned answer (ceiling)', kind: 'ceiling' },
  hand: { label: 'hand-written JSON-RPC, no SDK', kind: 'ceiling' },
  'sdk-v2': { label: 'bare SDK v2 (createMcpHandler)', kind: 'sdk' },
  'sdk-v1': { label: 'bare SDK v1 (sessions)', kind: 'sdk' },
  pier: { label: 'Pier (stateless, the default)', kind: 'pier' },
  'pier-sessions': { label: 'Pier (sessions: true)', kind: 'pier' },
  fastmcp: { label: 'fastmcp (peer framework)', kind: 'peer' },
};

/** The order bars are drawn in, within a group: ceilings, the SDK, peers, then Pier. */
const ORDER = ['raw', 'hand', 'sdk-v2', 'sdk-v1', 'fastmcp', 'pier', 'pier-sessions'];

function bar(id: string, samples: readonly number[]): Bar | undefined {
  const short = SHORT[id];
  if (short === undefined || samples.length === 0) return undefined;
  const { min, max } = spread(samples);
  return { ...short, value: median(samples), min, max };
}

function bars(entries: readonly (readonly [string, readonly number[]])[]): Bar[] {
  return [...entries]
    .sort(([a], [b]) => ORDER.indexOf(a) - ORDER.indexOf(b))
    .flatMap(([id, samples]) => bar(id, samples) ?? []);
}

/**
 * Each tool shape's req/s over the hand-written server's on `path`, measured in the same run (the median
 * and spread of the per-run ratios), after the hand-written server itself at 1.
 */
function shapeBars(results: BenchResults, path: (typeof PATHS)[number]): Bar[] {
  const hand = (results.throughput[handKey(path)] ?? []).map((s) => s.rps);
  if (hand.length === 0) return [];
  const out: Bar[] = [{ label: 'hand-written JSON-RPC, no SDK', kind: 'ceiling', value: 1, min: 1, max: 1 }];
  for (const shape of SHAPES) {
    const ratios = pairedRatios(
      (results.throughput[shapeKey(shape, path)] ?? []).map((s) => s.rps),
      hand,
    );
    if (ratios.length === 0) continue;
    out.push({ label: `Pier, ${shape.short}`, kind: 'pier', value: median(ratios), ...spread(ratios) });
  }
  return out.length > 1 ? out : [];
}

/** What the charts show of one run. */
export function chartData(results: BenchResults): ChartData {
  const { meta } = results;
  const eraGroups = [
    ['modern', '2026-07-28 request'],
    ['legacy', '2025-era request (stateless, or one session per connection)'],
  ] as const;
  const throughputOf = (era: string, pick: (s: { rps: number; cpuUsPerRequest: number }) => number) =>
    bars(
      Object.entries(results.throughput)
        .filter(([key]) => key.endsWith(` ${era}`) && !key.includes(' GET '))
        .map(([key, samples]) => [key.split(' ')[0]!, samples.map(pick)] as const),
    );
  const healthOf = (path: string) =>
    bars(
      Object.entries(results.throughput)
        .filter(([key]) => key.endsWith(` GET ${path}`))
        .map(([key, samples]) => [key.split(' ')[0]!, samples.map((s) => s.rps)] as const),
    );
  const charts: Chart[] = [
    {
      id: 'tool-shapes',
      title: 'Tool shapes (issue 31): req/s as a share of the hand-written server',
      unit: '×',
      better: 'higher',
      decimals: 2,
      mark: { value: 0.5, label: 'target 0.5×' },
      groups: PATHS.map((path) => ({ label: path.label, bars: shapeBars(results, path) })),
    },
    {
      id: 'tools-call-throughput',
      title: 'tools/call per second (echo tool, 50 connections)',
      unit: 'req/s',
      better: 'higher',
      groups: eraGroups.map(([era, label]) => ({ label, bars: throughputOf(era, (s) => s.rps) })),
    },
    {
      id: 'tools-call-cpu',
      title: 'Server CPU per tools/call',
      unit: 'µs',
      better: 'lower',
      groups: eraGroups.map(([era, label]) => ({ label, bars: throughputOf(era, (s) => s.cpuUsPerRequest) })),
    },
    {
      id: 'health',
      title: 'Health probes per second (50 connections)',
      unit: 'req/s',
      better: 'higher',
      groups: [
        { label: 'GET /health/live', bars: healthOf('/health/live') },
        { label: 'GET /health/ready (cached evaluation)', bars: healthOf('/health/ready') },
      ],
    },
    {
      id: 'cold-start',
      title: 'Cold start: spawn to the first 200 on readiness',
      unit: 'ms',
      better: 'lower',
      groups: [
        {
          label: 'node <program>, polled every 2 ms',
          bars: bars(Object.entries(results.coldStart).map(([id, s]) => [id, s.readyMs] as const)),
        },
      ],
    },
    {
      id: 'session-memory',
      title: 'Memory per idle 2025-era session (RSS)',
      unit: 'KiB',
      better: 'lower',
      groups: [
        {
          label: `${meta.sessions} sessions opened, then idle`,
          bars: bars(
            Object.entries(results.memory).map(
              ([id, samples]) => [id, samples.map((s) => s.rssBytesPerSession / 1024)] as const,
            ),
          ),
        },
      ],
    },
  ];
  return {
    meta: {
      date: meta.date,
      node: meta.node,
      machine: `${meta.cpus} × ${meta.cpuModel}, shared by servers and load generator`,
      method:
        `${meta.runs} run(s) of ${meta.seconds} s after a ${meta.warmupSeconds} s warm-up, ${meta.connections} connections ` +
        '(autocannon in its own process), every server a fresh child process on 127.0.0.1; bars are medians, ' +
        'whiskers the spread across runs',
      source: `pnpm bench${meta.smoke ? ' --smoke (figures mean nothing)' : ''}, ${meta.date.slice(0, 16).replace('T', ' ')} UTC`,
    },
    charts: charts
      .map((chart) => ({ ...chart, groups: chart.groups.filter((group) => group.bars.length > 0) }))
      .filter((chart) => chart.groups.length > 0),
  };
}

const COLOURS: Record<BarKind, string> = {
  pier: '#3451b2',
  sdk: '#8e8e93',
  peer: '#d97706',
  ceiling: '#c7c7cc',
};

const WIDTH = 760;
const LABEL_WIDTH = 250;
const VALUE_WIDTH = 110;
const BAR_HEIGHT = 18;
const BAR_GAP = 8;
const GROUP_GAP = 30;

function xmlText(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

function formatValue(value: number, decimals?: number): string {
  if (decimals !== undefined) return value.toFixed(decimals);
  return value >= 10 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1);
}

/** One chart as a standalone SVG document: horizontal bars per group, whiskers for the spread. */
export function renderChart(chart: Chart, meta: ChartData['meta']): string {
  const scaleMax = Math.max(
    ...chart.groups.flatMap((group) => group.bars.map((b) => Math.max(b.value, b.max))),
  );
  const plotWidth = WIDTH - LABEL_WIDTH - VALUE_WIDTH - 20;
  const x = (value: number) => LABEL_WIDTH + (scaleMax > 0 ? (value / scaleMax) * plotWidth : 0);
  const body: string[] = [];
  let y = 70;
  for (const group of chart.groups) {
    body.push(`<text x="16" y="${y}" class="group">${xmlText(group.label)}</text>`);
    y += 12;
    for (const b of group.bars) {
      const top = y;
      const mid = top + BAR_HEIGHT / 2;
      body.push(
        `<g><title>${xmlText(`${b.label}: ${formatValue(b.value, chart.decimals)} ${chart.unit} (spread ${formatValue(b.min, chart.decimals)}–${formatValue(b.max, chart.decimals)})`)}</title>`,
        `<text x="${LABEL_WIDTH - 10}" y="${mid + 4}" class="label${b.kind === 'pier' ? ' pier' : ''}" text-anchor="end">${xmlText(b.label)}</text>`,
        `<rect x="${LABEL_WIDTH}" y="${top}" width="${Math.max(1, x(b.value) - LABEL_WIDTH).toFixed(1)}" height="${BAR_HEIGHT}" rx="2" fill="${COLOURS[b.kind]}"/>`,
      );
      if (b.max > b.min) {
        body.push(
          `<path d="M${x(b.min).toFixed(1)} ${mid}H${x(b.max).toFixed(1)}M${x(b.min).toFixed(1)} ${mid - 4}v8M${x(b.max).toFixed(1)} ${mid - 4}v8" class="whisker"/>`,
        );
      }
      body.push(
        `<text x="${(Math.max(x(b.value), x(b.max)) + 6).toFixed(1)}" y="${mid + 4}" class="value">${formatValue(b.value, chart.decimals)} ${xmlText(chart.unit)}</text></g>`,
      );
      y += BAR_HEIGHT + BAR_GAP;
    }
    y += GROUP_GAP - BAR_GAP;
  }
  if (chart.mark !== undefined && chart.mark.value <= scaleMax) {
    const at = x(chart.mark.value).toFixed(1);
    body.push(
      `<path d="M${at} 62V${y - GROUP_GAP + BAR_GAP}" class="mark"/>`,
      `<text x="${at}" y="${y - GROUP_GAP + BAR_GAP + 14}" class="value" text-anchor="middle">${xmlText(chart.mark.label)}</text>`,
    );
    y += 14;
  }
  const height = y + 14;
  const when = meta.date.slice(0, 16).replace('T', ' ');
  const subtitle = `${chart.better === 'higher' ? 'Higher' : 'Lower'} is better. Node ${meta.node}, ${when} UTC; bars are medians, whiskers the spread across runs.`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-labelledby="title desc">`,
    `<title id="title">${xmlText(chart.title)}</title>`,
    `<desc id="desc">${xmlText(`${subtitle} ${meta.method}. ${meta.machine}. Source: ${meta.source}.`)}</desc>`,
    '<style>text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;fill:#1f2328}',
    '.title{font-size:16px;font-weight:600}.subtitle{font-size:12px;fill:#57606a}.group{font-size:13px;font-weight:600}',
    '.label{font-size:12px}.label.pier{font-weight:600}.value{font-size:12px;fill:#57606a}',
    '.whisker{stroke:#1f2328;stroke-width:1.2;fill:none;opacity:.55}',
    '.mark{stroke:#cf222e;stroke-width:1;stroke-dasharray:4 3;fill:none}</style>',
    `<rect width="${WIDTH}" height="${height}" rx="6" fill="#ffffff"/>`,
    `<text x="16" y="24" class="title">${xmlText(chart.title)}</text>`,
    `<text x="16" y="42" class="subtitle">${xmlText(subtitle)}</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

/** Every chart of `data`, as `[file name, SVG]`. */
export function renderCharts(data: ChartData): [string, string][] {
  return data.charts.map((chart) => [`${chart.id}.svg`, renderChart(chart, data.meta)]);
}

/** Writes `data.json` and one SVG per chart into `dir`. */
export function writeCharts(data: ChartData, dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'data.json'), `${JSON.stringify(data, null, 2)}\n`);
  for (const [file, svg] of renderCharts(data)) writeFileSync(join(dir, file), svg);
}
