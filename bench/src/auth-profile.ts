// `pnpm auth-profile [seconds] [era] [rounds] [before=DIR]`: where the time that `@pier/plugin-auth` adds to a
// tools/call goes (issue 17). Pier's bench server in three set-ups, each under --cpu-prof and the same
// load (50 connections, every request carrying the same ES256 JWT access token): auth off (the token
// ignored), the transport's authentication seam alone (`BENCH_AUTH=constant`: an authenticator that
// accepts everyone at once with one constant caller) and `authPlugin()` with `jwt()`, its verified-token
// cache warm. Only the samples taken during the measured seconds count (the profile's clock is the
// server's monotonic clock, read over the control channel before and after), divided by the requests
// answered in them and scaled to the process's CPU time in the window: µs of CPU per request per
// function, the functions that differ most between set-ups, and every function of the auth path.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startIssuer } from './harness/auth-issuer.js';
import type { CpuProfile, ProfileNode } from './harness/cpu-profile.js';
import { stopLoader, throughput } from './harness/measure.js';
import { exitCleanly, startServer } from './harness/process.js';
import { SERVERS } from './harness/servers.js';
import type { Era } from './load/requests.js';

const args = process.argv.slice(2);
const seconds = Number(args.find((a) => /^\d+$/.test(a)) ?? 6);
const era = (args.find((a) => a === 'modern' || a === 'legacy') ?? 'modern') as Era;
const rounds = Number(args.filter((a) => /^\d+$/.test(a))[1] ?? 1);

const pier = SERVERS.find((spec) => spec.id === 'pier');
if (pier === undefined) throw new Error('the pier bench server is not declared');

interface Measured {
  /** µs of CPU per request: self time per function, inclusive time per function. */
  readonly self: Map<string, number>;
  readonly inclusive: Map<string, number>;
  readonly busyUs: number;
  readonly cpuUsPerRequest: number;
  readonly rps: number;
}

const issuer = await startIssuer();
// `before=DIR`: also the plugin built from another revision (a saved `dist/` inside bench/, whose imports
// resolve from here), e.g. `before=dist/.before/plugin-auth`.
const before = args.find((a) => a.startsWith('before='))?.slice('before='.length);
const setups: readonly { readonly label: string; readonly env: Record<string, string> }[] = [
  { label: 'auth off (token ignored)', env: {} },
  { label: 'constant authenticator', env: { BENCH_AUTH: 'constant' } },
  { label: 'JWT ES256, cache warm', env: { BENCH_AUTH_ISSUER: issuer.url } },
  ...(before === undefined
    ? []
    : [
        {
          label: `JWT ES256, cache warm (${before})`,
          env: {
            BENCH_AUTH_ISSUER: issuer.url,
            BENCH_AUTH_MODULE: pathToFileURL(resolve(before, 'index.js')).href,
          },
        },
      ]),
];
const results = new Map<string, Measured[]>();
try {
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? setups : [...setups].reverse();
    for (const setup of order) {
      const measured = await profileOnce(setup.env);
      results.set(setup.label, [...(results.get(setup.label) ?? []), measured]);
      console.error(
        `round ${round + 1}: ${setup.label}: ${Math.round(measured.rps)} req/s, ` +
          `${measured.cpuUsPerRequest.toFixed(1)} µs/request (process CPU), ` +
          `${measured.busyUs.toFixed(1)} µs/request busy in the profile (wall clock)`,
      );
    }
  }
} finally {
  stopLoader();
  await issuer.close();
}
console.log(report());

async function profileOnce(env: Record<string, string>): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'pier-auth-profile-'));
  try {
    const server = await startServer(
      { ...pier!, env },
      { execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=200'] },
    );
    try {
      const headers = { authorization: `Bearer ${await issuer.token('ES256', `${server.base}/mcp`)}` };
      // Warm-up (JIT, the key set fetched, the token verified once), then the measured window.
      await throughput(server, { era }, { seconds: 2, warmupSeconds: 0, connections: 50, headers });
      const before = await server.stats();
      const sample = await throughput(
        server,
        { era },
        { seconds, warmupSeconds: 0, connections: 50, headers },
      );
      const after = await server.stats();
      if (sample.errors + sample.non2xx > 0) {
        throw new Error(`${sample.errors + sample.non2xx} requests failed: ${server.stderr()}`);
      }
      await exitCleanly(server);
      const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
      if (!file) throw new Error('no .cpuprofile was written');
      const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
      // The profiler samples by wall clock: on a loaded machine the time the process waited for a core
      // lands on whatever ran before it. Scaled so that the window's samples add up to the CPU the process
      // used in it, each function's share stays and its µs are CPU µs.
      const cpuUs = after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system;
      return {
        ...perRequest(profile, before.monotonicUs, after.monotonicUs, sample.requests, cpuUs),
        cpuUsPerRequest: sample.cpuUsPerRequest,
        rps: sample.rps,
      };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Self and inclusive CPU per function in the window [from, to] (µs, the profile's clock), per request. */
function perRequest(
  profile: CpuProfile,
  from: number,
  to: number,
  requests: number,
  cpuUs: number,
): Omit<Measured, 'cpuUsPerRequest' | 'rps'> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((nodeId, i) => {
    at += profile.timeDeltas[i] ?? 0;
    // A sample's delta is the time since the previous one: it stands for the interval ending at `at`.
    const delta = profile.timeDeltas[i + 1] ?? 0;
    if (at < from || at > to) return;
    const node = byId.get(nodeId)!;
    if (node.callFrame.functionName === '(idle)') return;
    busy += delta;
    const key = frameName(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + delta);
    const seen = new Set<string>();
    for (let id: number | undefined = nodeId; id !== undefined; id = parent.get(id)) {
      const name = frameName(byId.get(id)!.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + delta);
    }
  });
  const factor = cpuUs / busy / requests;
  const scale = (map: Map<string, number>) => new Map([...map].map(([k, v]) => [k, v * factor]));
  return { self: scale(self), inclusive: scale(inclusive), busyUs: busy / requests };
}

function frameName(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (url === '') return functionName || '(anonymous)';
  const modules = url.split('/node_modules/');
  const where =
    modules.length > 1
      ? modules[modules.length - 1]!.replace(/^(@[^/]+\/[^/]+|[^/]+)\/.*\/([^/]+)$/, '$1 $2')
      : url.replace(/^.*\/(packages|bench)\//, '$1/').replace(/^node:(internal\/)?/, 'node:');
  return `${functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
}

function report(): string {
  const mid = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  const labels = setups.map((s) => s.label);
  const of = (label: string, pick: (m: Measured) => number) => mid((results.get(label) ?? []).map(pick));
  const lines = [
    `\n${era} tools/call, ${seconds} s × ${rounds} round(s) per set-up, 50 connections; µs of CPU per request (median over rounds)\n`,
    `| set-up | process CPU | busy in the profile (wall clock, unscaled) | req/s |`,
    `| --- | --- | --- | --- |`,
    ...labels.map(
      (label) =>
        `| ${label} | ${of(label, (m) => m.cpuUsPerRequest).toFixed(1)} | ${of(label, (m) => m.busyUs).toFixed(1)} | ${Math.round(of(label, (m) => m.rps))} |`,
    ),
  ];
  const authPath = /plugin-auth|authenticate|crypto|jose|RegExp: \^bearer|\(garbage collector\)/;
  for (const kind of ['self', 'inclusive'] as const) {
    const names = new Set<string>();
    for (const list of results.values())
      for (const m of list) for (const k of m[kind].keys()) if (authPath.test(k)) names.add(k);
    const rows = [...names]
      .map((name) => ({ name, values: labels.map((label) => of(label, (m) => m[kind].get(name) ?? 0)) }))
      .filter((r) => Math.max(...r.values) >= 0.05)
      .sort((a, b) => Math.max(...b.values) - Math.max(...a.values));
    lines.push(
      `\n${kind} time of the auth path (plugin-auth, authenticate, crypto, jose, GC), µs per request:\n`,
      `| function | ${labels.join(' | ')} |`,
      `| --- | ${labels.map(() => '---').join(' | ')} |`,
      ...rows.map((r) => `| ${r.name} | ${r.values.map((v) => v.toFixed(2)).join(' | ')} |`),
    );
  }
  for (const kind of ['self', 'inclusive'] as const) {
    const names = new Set<string>();
    for (const list of results.values()) for (const m of list) for (const k of m[kind].keys()) names.add(k);
    const rows = [...names].map((name) => {
      const values = labels.map((label) => of(label, (m) => m[kind].get(name) ?? 0));
      return { name, values, spread: Math.max(...values) - Math.min(...values) };
    });
    rows.sort((a, b) => b.spread - a.spread);
    lines.push(
      `\n${kind} time, the 40 functions that differ most between set-ups (µs per request):\n`,
      `| function | ${labels.join(' | ')} |`,
      `| --- | ${labels.map(() => '---').join(' | ')} |`,
      ...rows.slice(0, 40).map((r) => `| ${r.name} | ${r.values.map((v) => v.toFixed(2)).join(' | ')} |`),
    );
  }
  return lines.join('\n');
}
