// `pnpm ab [seconds] [rounds] <server[@DIR]:era> ...`: server CPU per request of a few scenarios measured
// side by side — every server up at once, each scenario loaded in turn, the order flipped every round —
// so that a drift of the shared machine hits every figure alike. Prints the median µs per request and
// each scenario's ratio to the first one.
// `pier@DIR` runs the Pier server with `@pier/transport-http` loaded from DIR (a saved `dist/`, say the
// build before a change; keep it inside bench/ so that its imports resolve). A DIR named after another
// package (`dist/.before/core`, `dist/.before/plugin-health`) replaces that package instead, and several
// joined with `+` replace several (`pier@dist/.before/core+dist/.before/transport-http`).
// `pier=PROGRAM` runs another build of the whole server program instead (say bench/dist/servers/pier.js of a
// checkout of the commit before a change, built there), and an era starting with `/` loads that GET path.
// Example: pnpm ab 4 3 pier@dist/.before/transport-http:modern pier:modern sdk-v1:legacy pier:/health/ready
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeSharedIssuer } from './harness/auth-issuer.js';
import { stopLoader, throughput } from './harness/measure.js';
import { type RunningServer, startServer } from './harness/process.js';
import { findServer, type ServerSpec } from './harness/servers.js';
import { median, pairedRatios, spread } from './harness/stats.js';
import { ERAS, type Era } from './load/requests.js';
import { SHAPES } from './shapes.js';

const REDIRECT = join(dirname(fileURLToPath(import.meta.url)), 'harness', 'transport-redirect.js');

const args = process.argv.slice(2);
const numbers = args.filter((arg) => /^\d+$/.test(arg)).map(Number);
const [seconds = 4, rounds = 3] = numbers;
const scenarios = args
  .filter((arg) => !/^\d+$/.test(arg))
  .map((arg) => {
    // `server:era:shape` calls a tool shape of shapes.ts (`pier:modern:ctx`) instead of echo.
    const shapeId = SHAPES.find((shape) => arg.endsWith(`:${shape.id}`) && arg.split(':').length > 2)?.id;
    const rest = shapeId === undefined ? arg : arg.slice(0, -shapeId.length - 1);
    const colon = rest.lastIndexOf(':');
    const [server = '', era = ''] =
      colon === -1 ? [rest, 'legacy'] : [rest.slice(0, colon), rest.slice(colon + 1)];
    const call = SHAPES.find((shape) => shape.id === shapeId)?.call;
    return { label: arg, server, era: era as Era | `/${string}`, call };
  });
if (scenarios.length === 0) {
  throw new Error('usage: pnpm ab [seconds] [rounds] <server[@DIR]:era[:shape]> ...');
}
// An unknown era would be sent as a 2025 request without a word (`pier:sessions` once measured the
// stateless server: sessions are a server of their own, `pier-sessions:legacy`).
for (const { label, era } of scenarios) {
  if (!era.startsWith('/') && !ERAS.includes(era as Era)) {
    throw new Error(
      `${label}: unknown era "${era}"; one of ${ERAS.join(', ')} or a GET path (sessions: a \`-sessions\` server with legacy)`,
    );
  }
}

/** Pier packages a saved build may replace; a DIR named otherwise is taken for `@pier/transport-http`. */
const PACKAGES = new Set(['core', 'transport-http', 'plugin-health', 'plugin-auth', 'plugin-otel', 'config']);

/** `PIER_REDIRECTS` for the `+`-joined saved builds of `dirs`. */
function redirects(dirs: string): string {
  const map: Record<string, string> = {};
  for (const dir of dirs.split('+')) {
    const name = basename(dir);
    map[`@pier/${PACKAGES.has(name) ? name : 'transport-http'}`] = resolve(dir);
  }
  return JSON.stringify(map);
}

const running = new Map<string, RunningServer>();
try {
  for (const { server } of scenarios) {
    if (running.has(server)) continue;
    const [named, program] = server.split('=');
    const [id, dir] = (named ?? '').split('@');
    const base = findServer(id ?? '');
    const withProgram = program === undefined ? base : { ...base, program: resolve(program) };
    const spec: ServerSpec =
      dir === undefined
        ? withProgram
        : { ...withProgram, env: { ...base.env, PIER_REDIRECTS: redirects(dir) } };
    const execArgv = dir === undefined ? [] : ['--import', REDIRECT];
    running.set(server, await startServer(spec, { execArgv }));
  }
  const samples = new Map<string, number[]>(scenarios.map((s) => [s.label, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? scenarios : [...scenarios].reverse();
    for (const { label, server, era, call } of order) {
      const sample = await throughput(
        running.get(server)!,
        era.startsWith('/') ? { get: era } : { era: era as Era, ...(call !== undefined && { call }) },
        {
          seconds,
          warmupSeconds: 1,
          connections: 50,
        },
      );
      samples.get(label)!.push(sample.cpuUsPerRequest);
      console.log(
        `round ${round + 1}: ${label} ${Math.round(sample.rps)} req/s, ${Math.round(sample.cpuUsPerRequest)} µs/request, ${sample.errors + sample.non2xx} errors`,
      );
    }
  }
  const first = samples.get(scenarios[0]!.label)!;
  console.log(
    `\nserver CPU per request, median of ${rounds} rounds (min–max); ratio: median of the per-round ratios to ${scenarios[0]!.label}`,
  );
  for (const { label } of scenarios) {
    const values = samples.get(label)!;
    const { min, max } = spread(values);
    const ratio = median(pairedRatios(values, first));
    console.log(
      `${label.padEnd(48)} ${String(Math.round(median(values))).padStart(6)} µs (${Math.round(min)}–${Math.round(max)})  ×${ratio.toFixed(2)}`,
    );
  }
} finally {
  stopLoader();
  await closeSharedIssuer();
  for (const server of running.values()) await server.stop();
}
