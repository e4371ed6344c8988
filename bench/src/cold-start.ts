// `node dist/cold-start.js [rounds] [stdio|http]`: cold start of Pier against the bare SDK v2 (issue 22), over stdio
// (spawn → the answer to `initialize`) and over HTTP (spawn → the first 200 on /health/ready), on the Node
// running this script and on the Node named by `NODE24` (a path), with and without NODE_COMPILE_CACHE
// (Node ≥ 22.1 only; Node 20 has no compile cache). Each round spawns Pier and the SDK server one after
// the other, the order flipped every round; figures are medians, the ratio the median of per-round ratios.
// `node dist/cold-start.js callgrind [stdio|http|all] [pier|sdk]` counts instructions instead (valgrind's
// callgrind, one process per figure, node with `--single-threaded --predictable`; `NODE24` adds Node 24,
// with and without the compile cache): wall-clock on a shared machine moves by 2× between spawns, a count
// does not. A counted stdio server gets its answer and then its
// stdin's end, so that it exits by itself; an HTTP one gets SIGTERM after its first ready 200. Each count
// is given twice: to the answer (the program's start, what a client waits for) and to the exit (the
// start, plus what the program does after answering: a garbage collection it had begun, closing, exiting).
// The first comes from callgrind dumping its counts on entering libuv's `uv_try_write`, which is how node
// writes to a pipe or a socket: the answer is the stdio program's first write; over HTTP, the k-th write
// for the k-th response the prober received (the 200 on /health/ready being the last).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './harness/stats.js';

const SERVERS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'servers');
const counting = process.argv[2] === 'callgrind';
const rounds = counting ? 1 : Number(process.argv[2] ?? '5');
/** `stdio` or `http` to measure only that transport (`all`: both). */
const onlyMode = process.argv[3] === 'all' ? undefined : process.argv[3];
/** With `callgrind`: `pier` or `sdk` to count only that program. */
const onlyWho = counting ? process.argv[4] : undefined;
// A program under valgrind runs some 50× slower.
const LIMIT_MS = counting ? 600_000 : 15_000;
const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cold', version: '1' } },
})}\n`;

interface Setup {
  readonly label: string;
  readonly node: string;
  readonly cache: boolean;
}

const setups: Setup[] = [{ label: `Node ${process.versions.node}`, node: process.execPath, cache: false }];
const node24 = process.env.NODE24;
if (node24 !== undefined) {
  setups.push({ label: 'Node 24', node: node24, cache: false });
  setups.push({ label: 'Node 24, NODE_COMPILE_CACHE', node: node24, cache: true });
}

const PROGRAMS = {
  stdio: { pier: 'stdio-pier.js', sdk: 'stdio-sdk.js' },
  http: { pier: 'pier.js', sdk: 'sdk-v2.js' },
} as const;

/** A port nothing listens on right now (the OS picks it; other suites share this machine's ports). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Instructions counted to the answer and to the program's exit. */
interface Count {
  readonly answer: number;
  readonly exit: number;
}

/** Spawn to the first answer: `initialize` over stdio, or a 200 on /health/ready. */
async function coldStart(
  node: string,
  program: string,
  mode: 'stdio' | 'http',
  env: NodeJS.ProcessEnv,
  count = counting,
  /** End the program so that it exits by itself (node writes its compile cache only at such an exit). */
  graceful = count,
): Promise<number | Count> {
  const port = mode === 'http' ? await freePort() : 0;
  const started = performance.now();
  const outFile = count ? join(env.PIER_COUNT_DIR as string, `${program}.out`) : undefined;
  const command = outFile === undefined ? node : 'valgrind';
  // One thread and V8's `--predictable` (no time-based GC or compiler heuristics): repeated counts of one
  // program then agree within 0.1 %, where counts of all threads moved by up to 10 % on a loaded machine.
  // The start that fills a compile cache for a count gets the same flags (V8 checks them on reading it).
  const args = [...(counting ? ['--single-threaded', '--predictable'] : []), join(SERVERS_DIR, program)];
  if (outFile !== undefined) {
    args.unshift('--tool=callgrind', `--callgrind-out-file=${outFile}`, '--dump-before=uv_try_write', node);
  }
  const child: ChildProcess = spawn(command, args, {
    env: { ...env, PORT: String(port) },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  /** Responses received, the answer included (over HTTP, a 503 can come before the ready 200). */
  let responses = 0;
  return new Promise<number | Count>((resolve, reject) => {
    const limit = setTimeout(
      () => finish(new Error(`${program} did not answer within ${LIMIT_MS} ms`)),
      LIMIT_MS,
    );
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      const elapsed = performance.now() - started;
      if (!graceful || error) {
        clearTimeout(limit);
        child.kill('SIGKILL');
        if (error) reject(error);
        else resolve(elapsed);
        return;
      }
      // Counting: let the program end by itself (callgrind writes its counts at exit), then read them.
      child.removeAllListeners('exit');
      child.once('exit', () => {
        clearTimeout(limit);
        try {
          resolve(outFile === undefined ? elapsed : countsIn(outFile, responses));
        } catch (error) {
          reject(error);
        }
      });
      if (mode === 'stdio') child.stdin?.end();
      else child.kill('SIGTERM');
    };
    child.once('error', (error) => finish(error));
    child.once('exit', (code) => finish(new Error(`${program} exited (${code}) before answering`)));
    if (mode === 'stdio') {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('"id":1')) {
          responses = 1;
          finish();
        }
      });
      child.stdin?.write(INITIALIZE);
      return;
    }
    const poll = () => {
      if (done) return;
      const req = request({ host: '127.0.0.1', port, path: '/health/ready', timeout: 1_000 }, (res) => {
        res.resume();
        responses += 1;
        if (res.statusCode === 200) finish();
        else setTimeout(poll, 2);
      });
      req.on('error', () => setTimeout(poll, 2));
      req.end();
    };
    poll();
  });
}

/** The instructions a callgrind output file counts (its `summary:` or `totals:` line). */
function instructionsIn(file: string): number {
  const match = /^(?:summary|totals): (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (match === null) throw new Error(`${file}: no instruction count`);
  return Number(match[1]);
}

/**
 * The counts of one run: callgrind wrote `<file>.1`, `<file>.2`, … at each write (the part before it) and
 * `<file>` with the rest at exit. The answer is the `responses`-th write.
 */
function countsIn(file: string, responses: number): Count {
  const prefix = `${basename(file)}.`;
  const parts = readdirSync(dirname(file))
    .filter((name) => name.startsWith(prefix))
    .map((name) => Number(name.slice(prefix.length)))
    .sort((a, b) => a - b);
  if (parts.length < responses) throw new Error(`${file}: ${parts.length} writes for ${responses} responses`);
  const before = parts.slice(0, responses).map((part) => instructionsIn(`${file}.${part}`));
  const after = parts.slice(responses).map((part) => instructionsIn(`${file}.${part}`));
  const answer = before.reduce((sum, count) => sum + count, 0);
  return { answer, exit: answer + after.reduce((sum, count) => sum + count, 0) + instructionsIn(file) };
}

if (counting) {
  const dir = mkdtempSync(join(tmpdir(), 'pier-callgrind-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PIER_COUNT_DIR: dir };
  delete env.NODE_OPTIONS;
  delete env.NODE_COMPILE_CACHE;
  try {
    for (const mode of ['stdio', 'http'] as const) {
      if (onlyMode !== undefined && onlyMode !== mode) continue;
      // Over HTTP a program ends by SIGTERM, which writes no compile cache: counted over stdio only.
      for (const setup of setups.filter((candidate) => !candidate.cache || mode === 'stdio')) {
        const counts: Record<string, Count> = {};
        const cacheDir = setup.cache ? mkdtempSync(join(tmpdir(), 'pier-compile-cache-')) : undefined;
        const setupEnv = cacheDir === undefined ? env : { ...env, NODE_COMPILE_CACHE: cacheDir };
        try {
          for (const who of ['pier', 'sdk'] as const) {
            if (onlyWho !== undefined && onlyWho !== who) continue;
            // With the compile cache: one start outside valgrind fills it (and exits by itself, so that
            // node writes the cache), the counted start reads it.
            if (cacheDir !== undefined) {
              await coldStart(setup.node, PROGRAMS[mode][who], mode, setupEnv, false, true);
            }
            counts[who] = (await coldStart(setup.node, PROGRAMS[mode][who], mode, setupEnv)) as Count;
          }
        } finally {
          if (cacheDir !== undefined) rmSync(cacheDir, { recursive: true, force: true });
        }
        const { pier, sdk } = counts;
        const millions = (count: number | undefined) =>
          count === undefined ? '-' : `${Math.round(count / 1e6).toLocaleString('en')} M`;
        for (const upTo of ['answer', 'exit'] as const) {
          const ratio =
            pier !== undefined && sdk !== undefined
              ? `, pier/sdk ${(pier[upTo] / sdk[upTo]).toFixed(3)}×`
              : '';
          console.log(
            `${mode.padEnd(5)} ${setup.label.padEnd(30)} instructions to the ${upTo.padEnd(6)}: pier ${millions(pier?.[upTo])}, bare SDK v2 ${millions(sdk?.[upTo])}${ratio}`,
          );
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}

for (const mode of ['stdio', 'http'] as const) {
  if (onlyMode !== undefined && onlyMode !== mode) continue;
  for (const setup of setups) {
    const cacheDir = setup.cache ? mkdtempSync(join(tmpdir(), 'pier-compile-cache-')) : undefined;
    const env: NodeJS.ProcessEnv = { ...process.env, ...(cacheDir && { NODE_COMPILE_CACHE: cacheDir }) };
    delete env.NODE_OPTIONS;
    if (cacheDir === undefined) delete env.NODE_COMPILE_CACHE;
    try {
      if (cacheDir !== undefined) {
        // Fill the cache first: the measured starts are the ones after a first run. Over stdio the filling
        // start exits by itself, which writes the cache; an HTTP one is killed and writes none, so the HTTP
        // figures with the cache are of an empty one.
        await coldStart(setup.node, PROGRAMS[mode].pier, mode, env, false, mode === 'stdio');
        await coldStart(setup.node, PROGRAMS[mode].sdk, mode, env, false, mode === 'stdio');
      }
      const pier: number[] = [];
      const sdk: number[] = [];
      const ratios: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const order = round % 2 === 0 ? (['pier', 'sdk'] as const) : (['sdk', 'pier'] as const);
        const times: Record<string, number> = {};
        for (const who of order)
          times[who] = (await coldStart(setup.node, PROGRAMS[mode][who], mode, env)) as number;
        pier.push(times.pier as number);
        sdk.push(times.sdk as number);
        ratios.push((times.pier as number) / (times.sdk as number));
      }
      console.log(
        `${mode.padEnd(5)} ${setup.label.padEnd(30)} pier ${Math.round(median(pier))} ms, bare SDK v2 ${Math.round(
          median(sdk),
        )} ms, pier/sdk ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
      );
    } finally {
      if (cacheDir !== undefined) rmSync(cacheDir, { recursive: true, force: true });
    }
  }
}
