// `node dist/instructions.js <server> <what> [warm] [measured] [connections]`: the instructions one request
// costs a server, counted by valgrind's callgrind (user space, every thread: JIT, GC helpers), which no other
// process on the machine can disturb — the figure to compare when CPU times swing with the load. The server
// starts with instrumentation off (start-up is not counted), is warmed with `warm` requests (the JIT must
// have settled: with fewer than a few thousand the counts still fall), then the counters are zeroed,
// `measured` requests are sent over `connections` keep-alive connections and the counters dumped.
// <server> is an id of harness/servers.ts, `pier@DIR[+DIR]` as in ab.ts (a saved build of a package); <what>
// is `modern`, `legacy` or a GET path. Needs valgrind (callgrind_control). Kernel time (the socket write,
// a fifth of a small request's CPU) is not counted: `strace -c -f -p PID` shows the system calls are
// the same per request for every server here (one read, one writev).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PLUGIN_VARIANTS, SERVERS } from './harness/servers.js';
import { legacyEcho, modernEcho } from './load/requests.js';

const REDIRECT = join(dirname(fileURLToPath(import.meta.url)), 'harness', 'transport-redirect.js');
const PACKAGES = new Set(['core', 'transport-http', 'plugin-health', 'plugin-auth', 'plugin-otel', 'config']);
const START_LIMIT_MS = 180_000;

const [server = '', what = '', warmArg = '6000', measuredArg = '4000', connectionsArg = '8'] =
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
    'usage: node dist/instructions.js <server[@DIR]> <modern|legacy|/path> [warm] [measured] [connections]',
  );
}

const [id = '', dirs] = server.split('@');
const spec = [...SERVERS, ...PLUGIN_VARIANTS].find((s) => s.id === id);
if (spec === undefined) throw new Error(`unknown server ${id}`);
const env: NodeJS.ProcessEnv = { ...process.env, ...spec.env };
const execArgv: string[] = [];
if (dirs !== undefined) {
  const map: Record<string, string> = {};
  for (const dir of dirs.split('+')) {
    const name = basename(dir);
    map[`@pier/${PACKAGES.has(name) ? name : 'transport-http'}`] = resolve(dir);
  }
  env.PIER_REDIRECTS = JSON.stringify(map);
  execArgv.push('--import', REDIRECT);
}

const port = await new Promise<number>((done) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => done(port));
  });
});
env.PORT = String(port);
const out = mkdtempSync(join(tmpdir(), 'pier-instructions-'));
const child = spawn(
  'valgrind',
  [
    '--tool=callgrind',
    '--instr-atstart=no',
    `--callgrind-out-file=${out}/cg.%p`,
    'node',
    ...execArgv,
    spec.program,
  ],
  { env, stdio: ['ignore', 'ignore', 'pipe'], cwd: out },
);
let stderr = '';
child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
  stderr = (stderr + chunk).slice(-3_000);
});
const agent = new Agent({ keepAlive: true, maxSockets: connections });

/** One request; resolves on a 200, rejects otherwise. */
function send(n: number): Promise<void> {
  const get = what.startsWith('/');
  const call = get ? undefined : what === 'modern' ? modernEcho(n) : legacyEcho(n);
  const headers: Record<string, string | number> =
    call === undefined ? {} : { ...call.headers, 'content-length': Buffer.byteLength(call.body) };
  return new Promise((done, fail) => {
    const req = request(
      { host: '127.0.0.1', port, agent, method: get ? 'GET' : 'POST', path: get ? what : '/mcp', headers },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? done() : fail(new Error(`HTTP ${res.statusCode}`))));
      },
    );
    req.on('error', fail);
    req.end(call?.body);
  });
}

/** Retries a request cut by the server's keep-alive timeout (the server runs 50× slower under valgrind). */
async function sendRetrying(n: number): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await send(n);
    } catch (error) {
      if (attempt >= 3 || !/ECONNRESET|socket hang up/.test(String(error))) throw error;
    }
  }
}

async function load(total: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < total) await sendRetrying(next++);
    }),
  );
}

try {
  const deadline = Date.now() + START_LIMIT_MS;
  for (;;) {
    try {
      await send(0);
      break;
    } catch {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`${server} did not start\n${stderr}`);
      await new Promise((done) => setTimeout(done, 200));
    }
  }
  const control = (...args: string[]) =>
    execFileSync('callgrind_control', [...args, String(child.pid)], { cwd: out, stdio: 'ignore' });
  control('-i', 'on');
  await load(warm);
  control('-z');
  await load(measured);
  control('-d');
  let total = 0;
  for (const file of readdirSync(out)) {
    if (!/\.\d+$/.test(file.replace(/^cg\.\d+/, ''))) continue;
    const counted = /^(?:totals|summary): (\d+)/m.exec(readFileSync(join(out, file), 'utf8'));
    if (counted) total += Number(counted[1]);
  }
  console.log(
    `${server} ${what}: ${(total / measured / 1000).toFixed(1)} k instructions a request (${measured} after ${warm})`,
  );
} finally {
  child.kill('SIGKILL');
  agent.destroy();
  rmSync(out, { recursive: true, force: true });
}
