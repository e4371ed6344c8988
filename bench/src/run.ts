// `pnpm bench`: every measurement, in rounds, then bench/RESULTS.md and bench/results/latest.json.
// `--smoke` (or BENCH_SMOKE=1): 0.5 s per measurement with 10 connections, no warm-up, one round, each server
// spawned once and all at once (that start is its cold start), 50 sessions, 200 probes, no install
// footprint, no instruction counts.
// `--out FILE` and `--json FILE` write elsewhere (the charts go to charts/ beside the report); `--only id,id` limits the servers (for development);
// `--instructions none|middleware|all` chooses what is also counted in instructions under valgrind's
// callgrind after the rounds (full run: `middleware`, the ≤ 5 % target; smoke: `none`).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chartData, writeCharts } from './charts.js';
import { closeSharedIssuer } from './harness/auth-issuer.js';
import { installFootprint } from './harness/footprint.js';
import { countInstructions, hasCallgrind } from './harness/instructions.js';
import {
  type AnswerCheck,
  type MemorySample,
  memoryPerSession,
  type Scenario,
  type StampedeSample,
  stampede,
  stopLoader,
  type ThroughputSample,
  throughput,
  type Verification,
  verify,
} from './harness/measure.js';
import { type RunningServer, startServer } from './harness/process.js';
import {
  PEERS_DIR,
  SERVERS,
  type ServerSpec,
  SHAPE_SERVERS,
  UNAVAILABLE_PEERS,
  unavailable,
} from './harness/servers.js';
import type { CallShape, Era } from './load/requests.js';
import { renderReport } from './report.js';
import type { BenchResults } from './results.js';
import { keepSections } from './sections.js';
import { PATHS, SHAPES, serverOf, shapeKey } from './shapes.js';

const BENCH_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The cells of the tool-shape matrix a smoke run loads (it checks the answer of every cell): each shape and
 * each path at least once, each way the loader builds a request (progress and log level, a bearer token
 * in a session, the example app) once.
 */
const SMOKE_CELLS = new Set([
  'echo modern',
  'echo legacy',
  'echo sessions',
  'ctx modern',
  'ctx sessions',
  'output legacy',
  'scopes sessions',
  'tasks modern',
  'otel legacy',
  'otel-sdk modern',
  'middleware legacy',
  'notes sessions',
]);

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: process.env.BENCH_SMOKE === '1' },
    out: { type: 'string', default: join(BENCH_DIR, 'RESULTS.md') },
    json: { type: 'string', default: join(BENCH_DIR, 'results', 'latest.json') },
    only: { type: 'string' },
    instructions: { type: 'string' },
  },
});
const smoke = values.smoke === true;
const counting = values.instructions ?? (smoke ? 'none' : 'middleware');
if (!['none', 'middleware', 'all'].includes(counting)) {
  throw new Error(`--instructions: none, middleware or all, not ${counting}`);
}
const plan = {
  runs: smoke ? 1 : 3,
  seconds: smoke ? 0.5 : 5,
  warmupSeconds: smoke ? 0 : 1,
  connections: smoke ? 10 : 50,
  sessions: smoke ? 50 : 1_000,
  settleMs: smoke ? 0 : 10_000,
  probes: smoke ? 200 : 1_000,
  // In smoke mode the one cold start of each server is its start for the loads (see below).
  coldStartsPerRun: smoke ? 0 : 3,
};

const started = performance.now();
const loadAverageBefore = loadavg();
if (!smoke) installPeers();
const only = values.only?.split(',');
const specs = [...SERVERS, ...SHAPE_SERVERS].filter((spec) => !only || only.includes(spec.id));
const skipped = new Map(specs.map((spec) => [spec.id, unavailable(spec)]));
const runnable = specs.filter((spec) => skipped.get(spec.id) === undefined);

const verifications: Verification[] = [];
const throughputSamples: Record<string, ThroughputSample[]> = {};
const coldStart: Record<string, { liveMs: number[]; readyMs: number[] }> = {};
const memory: Record<string, MemorySample[]> = {};
const stampedes: StampedeSample[] = [];

for (let round = 0; round < plan.runs; round += 1) {
  log(`round ${round + 1} of ${plan.runs}`);
  for (const spec of runnable.filter((s) => s.noColdStart === undefined)) {
    const cold = coldStart[spec.id] ?? { liveMs: [], readyMs: [] };
    coldStart[spec.id] = cold;
    for (let i = 0; i < plan.coldStartsPerRun; i += 1) {
      const server = await startServer(spec);
      cold.liveMs.push(server.liveMs);
      cold.readyMs.push(server.readyMs);
      await server.stop();
    }
  }
  // Every server up at once (idle ones cost nothing), so that the figures a ratio compares are
  // measured back to back; the order within a group flips every round to cancel a drift.
  const running = new Map<string, RunningServer>();
  const groups = scenarioGroups(runnable);
  try {
    // Smoke mode starts two at a time (the harness is what it checks); a full run one after the other.
    await startAll(runnable, smoke ? 2 : 1, running);
    log(`  ${running.size} servers started`);
    if (smoke) {
      for (const spec of runnable.filter((s) => s.noColdStart === undefined)) {
        // One spawn per server instead of two: in smoke mode this start is the cold start, a figure that
        // means nothing, as every smoke figure.
        const server = running.get(spec.id)!;
        coldStart[spec.id] = { liveMs: [server.liveMs], readyMs: [server.readyMs] };
      }
    }
    if (round === 0) {
      for (const server of running.values()) {
        const calls = groups
          .flat()
          .filter((m) => m.spec.id === server.spec.id && 'era' in m.scenario)
          .map((m) => m.scenario as { era: Era; call?: CallShape; expect?: AnswerCheck });
        verifications.push(...(await verify(server, calls)));
      }
      log(`  ${verifications.length} answers checked`);
    }
    for (const group of groups) {
      const loaded = group.filter((m) => !m.verifyOnly);
      for (const { spec, key, scenario } of round % 2 === 0 ? loaded : [...loaded].reverse()) {
        log(`  ${key}`);
        const sample = await throughput(running.get(spec.id)!, scenario, plan);
        throughputSamples[key] = [...(throughputSamples[key] ?? []), sample];
      }
    }
  } finally {
    for (const server of running.values()) await server.stop();
  }
  for (const spec of runnable.filter((s) => s.sessionful && s.shape === undefined)) {
    log(`  ${spec.id} memory, ${plan.sessions} sessions`);
    const sample = await memoryPerSession(spec, plan.sessions, plan.settleMs);
    memory[spec.id] = [...(memory[spec.id] ?? []), sample];
  }
  for (const spec of runnable.filter((s) => s.countsChecks && !s.sessionful)) {
    log(`  ${spec.id} stampede, ${plan.probes} probes`);
    stampedes.push(await stampede(spec, plan.probes));
  }
}

stopLoader();

let instructions: BenchResults['instructions'] = { skipped: 'not asked for (--instructions none)' };
if (counting !== 'none') {
  if (!hasCallgrind()) instructions = { skipped: 'valgrind (callgrind_control) is not installed' };
  else instructions = await countAll(counting === 'all');
}
await closeSharedIssuer();

let footprint: BenchResults['footprint'] = { skipped: 'smoke mode (it installs from the npm registry)' };
if (!smoke) {
  log('install footprint');
  footprint = {
    pier: await installFootprint(['core', 'transport-http', 'plugin-health']),
    config: await installFootprint(['config']),
  };
}

const results: BenchResults = {
  meta: {
    command: smoke ? 'BENCH_SMOKE=1 node dist/run.js' : 'pnpm bench   (in bench/)',
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    loadAverageBefore,
    loadAverageAfter: loadavg(),
    smoke,
    runs: plan.runs,
    seconds: plan.seconds,
    warmupSeconds: plan.warmupSeconds,
    connections: plan.connections,
    sessions: plan.sessions,
    probes: plan.probes,
    versions: versions(),
    durationSeconds: Math.round((performance.now() - started) / 1_000),
  },
  servers: specs.map((spec) => {
    const reason = skipped.get(spec.id);
    return { id: spec.id, label: spec.label, ...(reason !== undefined && { skipped: reason }) };
  }),
  unavailablePeers: UNAVAILABLE_PEERS,
  verifications,
  throughput: throughputSamples,
  instructions,
  coldStart,
  memory,
  stampede: stampedes,
  footprint,
};

mkdirSync(dirname(values.json), { recursive: true });
writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(values.out, keepSections(renderReport(results), values.out));
// The charts (and the figures they show, committed where the raw samples are not) go beside the report.
const chartsDir = join(dirname(values.out), 'charts');
writeCharts(chartData(results), chartsDir);
log(`wrote ${values.out}, ${chartsDir}/ and ${values.json} in ${results.meta.durationSeconds} s`);
const failed = verifications.filter((v) => !v.ok);
if (failed.length > 0) {
  for (const v of failed) log(`FAILED ${v.server} ${v.check}: ${v.detail}`);
  process.exitCode = 1;
}

/**
 * Starts every server of `specs`, `concurrency` at a time, into `running` (in the order of `specs`); when
 * one fails, waits for those under way (they land in `running`, which the caller stops) and throws.
 */
async function startAll(
  specs: readonly ServerSpec[],
  concurrency: number,
  running: Map<string, RunningServer>,
): Promise<void> {
  const started = new Map<string, RunningServer>();
  let next = 0;
  let failure: unknown;
  const worker = async (): Promise<void> => {
    while (next < specs.length && failure === undefined) {
      const spec = specs[next++]!;
      try {
        started.set(spec.id, await startServer(spec));
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  for (const spec of specs) {
    const server = started.get(spec.id);
    if (server !== undefined) running.set(spec.id, server);
  }
  if (failure !== undefined) throw failure;
}

interface Measurement {
  readonly spec: ServerSpec;
  /** `server era` or `server GET path`: the key of its samples. */
  readonly key: string;
  readonly scenario: Scenario;
  /** Only checked, not loaded (smoke mode: most of the tool-shape matrix). */
  readonly verifyOnly?: true;
}

/**
 * Every measurement, grouped with those it is compared with (same path): echo in each era a server speaks,
 * then issue 31's tool shapes, each on its path's group (2026-07-28, 2025 stateless, 2025 sessions).
 */
function scenarioGroups(specs: readonly ServerSpec[]): Measurement[][] {
  const groups = new Map<string, Measurement[]>();
  const keys = new Set<string>();
  const add = (group: string, measurement: Measurement): void => {
    if (keys.has(measurement.key)) return;
    keys.add(measurement.key);
    groups.set(group, [...(groups.get(group) ?? []), measurement]);
  };
  for (const spec of specs) {
    for (const era of spec.eras) {
      // The input-required exchange is compared with a plain 2026-07-28 call: measured back to back.
      const group =
        era === 'legacy'
          ? `legacy ${spec.sessionful ? 'sessionful' : 'stateless'}`
          : era === 'input-required'
            ? 'modern'
            : era;
      add(group, { spec, key: `${spec.id} ${era}`, scenario: { era } });
    }
    if (spec.healthLoad) {
      add('live', { spec, key: `${spec.id} GET ${spec.live}`, scenario: { get: spec.live } });
      add('ready', { spec, key: `${spec.id} GET ${spec.ready}`, scenario: { get: spec.ready } });
    }
  }
  for (const shape of SHAPES) {
    for (const path of PATHS) {
      const spec = specs.find((s) => s.id === serverOf(shape, path));
      if (spec === undefined) continue;
      const group = path.era === 'modern' ? 'modern' : `legacy ${path.sessions ? 'sessionful' : 'stateless'}`;
      add(group, {
        spec,
        key: shapeKey(shape, path),
        ...(smoke && !SMOKE_CELLS.has(`${shape.id} ${path.id}`) && { verifyOnly: true as const }),
        scenario: {
          era: path.era,
          ...(shape.call.tool !== 'echo' && { call: shape.call }),
          ...(shape.expect !== undefined && { expect: shape.expect }),
        },
      });
    }
  }
  return [...groups.values()];
}

/**
 * Instructions per request under callgrind (harness/instructions.ts), two servers at a time (a count does
 * not depend on what else runs): echo on `pier` and on `pier-mw` (three no-op middlewares) on both
 * stateless paths; with `all`, every tool shape on them too.
 */
async function countAll(all: boolean): Promise<Record<string, number>> {
  const jobs: { key: string; spec: ServerSpec; what: string; call?: CallShape }[] = [];
  for (const shape of SHAPES) {
    if (!all && shape.id !== 'echo' && shape.id !== 'middleware') continue;
    for (const path of PATHS.filter((p) => !p.sessions)) {
      const spec = runnable.find((s) => s.id === serverOf(shape, path));
      if (spec === undefined) continue;
      jobs.push({ key: shapeKey(shape, path), spec, what: path.era, call: shape.call });
    }
  }
  const counts: Record<string, number> = {};
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      log(`  instructions: ${job.key}`);
      try {
        counts[job.key] = (
          await countInstructions(job.spec, {
            what: job.what,
            ...(job.call !== undefined && { call: job.call }),
          })
        ).main;
      } catch (error) {
        log(`  instructions: ${job.key} failed: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all([worker(), worker()]);
  return counts;
}

/** The peer frameworks live in their own npm project (see peers/.npmrc for why). */
function installPeers(): void {
  if (existsSync(join(PEERS_DIR, 'node_modules', 'fastmcp'))) return;
  log('installing peer frameworks (npm ci in bench/peers)');
  // Under `pnpm bench`, `npm ci` here refused fastmcp's Node >= 22 declarations (EBADENGINE) although
  // peers/.npmrc turns engine-strict off; the environment outranks every .npmrc, whatever the caller sets.
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: PEERS_DIR,
    stdio: 'inherit',
    env: { ...process.env, npm_config_engine_strict: 'false' },
  });
}

function versions(): Record<string, string> {
  const read = (path: string): string => {
    try {
      return String(JSON.parse(readFileSync(path, 'utf8')).version);
    } catch {
      return 'not installed';
    }
  };
  const bench = join(BENCH_DIR, 'node_modules');
  return {
    '@pier/core': read(join(bench, '@pier', 'core', 'package.json')),
    '@pier/transport-http': read(join(bench, '@pier', 'transport-http', 'package.json')),
    '@pier/plugin-health': read(join(bench, '@pier', 'plugin-health', 'package.json')),
    '@modelcontextprotocol/server': read(join(bench, '@modelcontextprotocol', 'server', 'package.json')),
    '@modelcontextprotocol/node': read(join(bench, '@modelcontextprotocol', 'node', 'package.json')),
    '@modelcontextprotocol/sdk': read(join(bench, '@modelcontextprotocol', 'sdk', 'package.json')),
    fastmcp: read(join(PEERS_DIR, 'node_modules', 'fastmcp', 'package.json')),
    autocannon: read(join(bench, 'autocannon', 'package.json')),
  };
}

function log(line: string): void {
  process.stderr.write(`[bench ${((performance.now() - started) / 1_000).toFixed(1)} s] ${line}\n`);
}
