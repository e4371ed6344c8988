// `pnpm profile <server> <what> [seconds]`: one server under load with --cpu-prof, and where its CPU
// time went, grouped by who owns the code (Pier's packages, the SDK, zod, node's HTTP stack, GC).
// <what> is an era (modern, legacy, canned) or a GET path (/health/live, /health/ready).
// Example: pnpm profile pier modern 5; a fourth argument calls a tool shape of shapes.ts instead of echo
// (pnpm profile pier-sessions legacy 5 ctx).
// <what> `boot` profiles start-up only: spawn to ready, then a clean exit.
// `pnpm profile startup` instead times the imports a Pier server makes, each in fresh processes.
// `pier=PROGRAM` profiles another build's server program (as in `pnpm ab`), say a checkout before a change.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeSharedIssuer } from './harness/auth-issuer.js';
import type { CpuProfile, ProfileNode } from './harness/cpu-profile.js';
import { type Scenario, stopLoader, throughput } from './harness/measure.js';
import { exitCleanly, startServer } from './harness/process.js';
import { findServer } from './harness/servers.js';
import { median } from './harness/stats.js';
import type { Era } from './load/requests.js';
import { SHAPES } from './shapes.js';

const [server = 'pier', what = 'modern', secondsArg = '5', shapeId] = process.argv.slice(2);
const [id = 'pier', program] = server.split('=');
if (id === 'startup') {
  console.log(importCosts());
  process.exit(0);
}
const base = findServer(id);
const spec = program === undefined ? base : { ...base, program: resolve(program) };
const call = shapeId === undefined ? undefined : SHAPES.find((shape) => shape.id === shapeId)?.call;
if (shapeId !== undefined && call === undefined) {
  throw new Error(`unknown shape ${shapeId}; one of ${SHAPES.map((shape) => shape.id).join(', ')}`);
}
const scenario: Scenario | undefined =
  what === 'boot'
    ? undefined
    : what.startsWith('/')
      ? { get: what }
      : { era: what as Era, ...(call !== undefined && { call }) };

const dir = mkdtempSync(join(tmpdir(), 'pier-profile-'));
try {
  const server = await startServer(spec, { execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
  const options = { seconds: Number(secondsArg), warmupSeconds: 1, connections: 50 };
  const sample = scenario && (await throughput(server, scenario, options));
  stopLoader();
  await closeSharedIssuer();
  await exitCleanly(server);
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('no .cpuprofile was written');
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  console.log(
    sample
      ? `${id} ${what}: ${Math.round(sample.rps)} req/s, server CPU ${Math.round(sample.cpuUsPerRequest)} µs/request ` +
          `(the profile covers start-up, warm-up and measurement; ${sample.requests} measured requests)\n`
      : `${id} boot: ready ${Math.round(server.readyMs)} ms after spawn\n`,
  );
  console.log(summarize(profile));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** Self time by owner, the hottest functions, and inclusive time of the owners' entry points. */
function summarize(profile: CpuProfile): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<number, number>();
  profile.samples.forEach((nodeId, i) => {
    self.set(nodeId, (self.get(nodeId) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });

  const ownerSelf = new Map<string, number>();
  const functionSelf = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (const [nodeId, time] of self) {
    const node = byId.get(nodeId)!;
    const owner = ownerOf(node.callFrame);
    if (owner === 'idle') continue;
    busy += time;
    ownerSelf.set(owner, (ownerSelf.get(owner) ?? 0) + time);
    const key = `${owner} ${frameName(node.callFrame)}`;
    functionSelf.set(key, (functionSelf.get(key) ?? 0) + time);
    // Inclusive: every distinct owner and function on the stack gets this sample's time once.
    const seen = new Set<string>();
    for (let at: number | undefined = nodeId; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const frameOwner = ownerOf(frame);
      for (const k of [`[${frameOwner}]`, `${frameOwner} ${frameName(frame)}`]) {
        if (seen.has(k)) continue;
        seen.add(k);
        inclusive.set(k, (inclusive.get(k) ?? 0) + time);
      }
    }
  }
  const pct = (t: number): string => `${((100 * t) / busy).toFixed(1).padStart(5)}%`;
  const top = (map: Map<string, number>, n: number, filter: (k: string) => boolean = () => true): string[] =>
    [...map]
      .filter(([k]) => filter(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, t]) => `  ${pct(t)}  ${k}`);
  return [
    `busy (non-idle) CPU in the profile: ${(busy / 1e6).toFixed(2)} s`,
    '',
    'self time by owner:',
    ...top(ownerSelf, 20),
    '',
    'inclusive time by owner (a sample counts for every owner on its stack):',
    ...top(inclusive, 20, (k) => k.startsWith('[')),
    '',
    'hottest functions, self time:',
    ...top(functionSelf, 30),
    '',
    'inclusive time of Pier and SDK functions:',
    ...top(inclusive, 40, (k) => /^(pier|@modelcontextprotocol)/.test(k)),
  ].join('\n');
}

function ownerOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return 'V8/native (program)';
  const pier =
    /\/(?:packages|apps)\/(core|transport-http|plugin-health|plugin-auth|plugin-otel|config|example-server)\//.exec(
      url,
    );
  if (pier) return `pier ${pier[1]}`;
  const modules = url.split('/node_modules/');
  if (modules.length > 1) {
    const rest = modules[modules.length - 1]!.split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.includes('/bench/')) return 'bench server';
  if (url.startsWith('node:')) return `node ${url.replace(/^node:(internal\/)?/, '').split('/')[0]}`;
  return url === '' ? 'V8 builtins' : url;
}

function frameName(frame: ProfileNode['callFrame']): string {
  const file = frame.url.split('/').pop() ?? '';
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

/** Median import time of each module of a Pier server, in the order the server loads them. */
function importCosts(): string {
  const timer = join(dirname(fileURLToPath(import.meta.url)), 'import-timer.js');
  const chains = [
    ['node:http'],
    [
      'node:http',
      'zod',
      '@modelcontextprotocol/server',
      '@pier/core',
      '@pier/transport-http',
      '@pier/plugin-health',
    ],
    ['node:http', '@modelcontextprotocol/server', '@modelcontextprotocol/node'],
  ];
  const lines = ["median of 7 fresh processes each; a module's time is what it adds to those before it:", ''];
  for (const chain of chains) {
    const runs = Array.from({ length: 7 }, () => {
      const out = execFileSync(process.execPath, [timer, ...chain], { encoding: 'utf8' });
      return JSON.parse(out) as { times: Record<string, number>; sinceProcessStart: number };
    });
    const parts = chain.map((m) => `${m} ${median(runs.map((r) => r.times[m] ?? 0)).toFixed(0)} ms`);
    lines.push(
      `  ${parts.join(' + ')}; process start to done ${median(runs.map((r) => r.sinceProcessStart)).toFixed(0)} ms`,
    );
  }
  return lines.join('\n');
}
