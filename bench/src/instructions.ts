// `node dist/instructions.js <server> <what> [warm] [measured] [connections] [tool]`: the instructions one
// request costs a server, counted by valgrind's callgrind (harness/instructions.ts says how), which no
// other process on the machine can disturb — the figure to compare when CPU times swing with the load.
// <server> is an id of harness/servers.ts, `pier@DIR[+DIR]` as in ab.ts (a saved build of a package), and
// `id=PROGRAM` runs that server's settings with another program (say `pier=dist/servers/pier-fetch.js`); <what>
// is `modern`, `legacy` (in one session when the server is sessionful: `pier-sessions legacy`) or a GET path; [tool] a tool shape of shapes.ts (`ctx`, `output`, `notes`…; default
// the server's echo). Needs valgrind (callgrind_control). Kernel time (the socket write, a fifth of a small
// request's CPU) is not counted: `strace -c -f -p PID` shows the system calls are the same per request for
// every server here (one read, one writev).
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeSharedIssuer } from './harness/auth-issuer.js';
import { countInstructions } from './harness/instructions.js';
import { findServer } from './harness/servers.js';
import { SHAPES } from './shapes.js';

const REDIRECT = join(dirname(fileURLToPath(import.meta.url)), 'harness', 'transport-redirect.js');
const PACKAGES = new Set([
  'core',
  'transport-http',
  'plugin-health',
  'plugin-auth',
  'plugin-otel',
  'plugin-limits',
  'config',
]);

const [server = '', what = '', warmArg = '6000', measuredArg = '4000', connectionsArg = '8', tool] =
  process.argv.slice(2);
const warm = Number(warmArg);
const measured = Number(measuredArg);
const connections = Number(connectionsArg);
if (
  server === '' ||
  what === '' ||
  ![warm, measured, connections].every((n) => Number.isInteger(n) && n > 0)
) {
  throw new Error(
    'usage: node dist/instructions.js <server[@DIR]> <modern|legacy|/path> [warm] [measured] [connections] [shape]',
  );
}
const shape = tool === undefined ? undefined : SHAPES.find((s) => s.id === tool);
if (tool !== undefined && shape === undefined) {
  throw new Error(`unknown shape ${tool}; one of ${SHAPES.map((s) => s.id).join(', ')}`);
}

const [named = '', program] = server.split('=');
const [id = '', dirs] = named.split('@');
const base = findServer(id);
const spec = program === undefined ? base : { ...base, program: resolve(program) };
const env: Record<string, string> = {};
// BENCH_NODE_ARGS: more node flags for the server (`--single-threaded`: GC and compilation on the main
// thread, so its count no longer depends on what helper threads took).
const execArgv: string[] = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
if (dirs !== undefined) {
  const map: Record<string, string> = {};
  for (const dir of dirs.split('+')) {
    const name = basename(dir);
    map[`@pier/${PACKAGES.has(name) ? name : 'transport-http'}`] = resolve(dir);
  }
  env.PIER_REDIRECTS = JSON.stringify(map);
  execArgv.push('--import', REDIRECT);
}

try {
  const { main, all, gc } = await countInstructions(spec, {
    what,
    ...(shape !== undefined && { call: shape.call }),
    warm,
    measured,
    connections,
    execArgv,
    env,
  });
  console.log(
    `${server} ${what}${tool === undefined ? '' : ` ${tool}`}: ${(main / 1000).toFixed(1)} k instructions a request in the main thread (${((main - gc) / 1000).toFixed(1)} k without the collector's ${(gc / 1000).toFixed(1)} k), ${(all / 1000).toFixed(1)} k in every thread (${measured} after ${warm})`,
  );
} finally {
  await closeSharedIssuer();
}
