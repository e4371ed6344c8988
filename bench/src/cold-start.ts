// `node dist/cold-start.js [rounds] [stdio|http]`: cold start of Pier against the bare SDK v2 (issue 22), over stdio
// (spawn → the answer to `initialize`) and over HTTP (spawn → the first 200 on /health/ready), on the Node
// running this script and on the Node named by `NODE24` (a path), with and without NODE_COMPILE_CACHE
// (Node ≥ 22.1 only; Node 20 has no compile cache). Each round spawns Pier and the SDK server one after
// the other, the order flipped every round; figures are medians, the ratio the median of per-round ratios.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './harness/stats.js';

const SERVERS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'servers');
const rounds = Number(process.argv[2] ?? '5');
/** `stdio` or `http` to measure only that transport. */
const onlyMode = process.argv[3];
const LIMIT_MS = 15_000;
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

/** Spawn to the first answer: `initialize` over stdio, or a 200 on /health/ready. */
async function coldStart(
  node: string,
  program: string,
  mode: 'stdio' | 'http',
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const port = mode === 'http' ? await freePort() : 0;
  const started = performance.now();
  const child: ChildProcess = spawn(node, [join(SERVERS_DIR, program)], {
    env: { ...env, PORT: String(port) },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  return new Promise<number>((resolve, reject) => {
    const limit = setTimeout(
      () => finish(new Error(`${program} did not answer within ${LIMIT_MS} ms`)),
      LIMIT_MS,
    );
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(limit);
      const elapsed = performance.now() - started;
      child.kill('SIGKILL');
      if (error) reject(error);
      else resolve(elapsed);
    };
    child.once('error', (error) => finish(error));
    child.once('exit', (code) => finish(new Error(`${program} exited (${code}) before answering`)));
    if (mode === 'stdio') {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('"id":1')) finish();
      });
      child.stdin?.write(INITIALIZE);
      return;
    }
    const poll = () => {
      if (done) return;
      const req = request({ host: '127.0.0.1', port, path: '/health/ready', timeout: 1_000 }, (res) => {
        res.resume();
        if (res.statusCode === 200) finish();
        else setTimeout(poll, 2);
      });
      req.on('error', () => setTimeout(poll, 2));
      req.end();
    };
    poll();
  });
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
        // Fill the cache first: the measured starts are the ones after a first run.
        await coldStart(setup.node, PROGRAMS[mode].pier, mode, env);
        await coldStart(setup.node, PROGRAMS[mode].sdk, mode, env);
      }
      const pier: number[] = [];
      const sdk: number[] = [];
      const ratios: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const order = round % 2 === 0 ? (['pier', 'sdk'] as const) : (['sdk', 'pier'] as const);
        const times: Record<string, number> = {};
        for (const who of order) times[who] = await coldStart(setup.node, PROGRAMS[mode][who], mode, env);
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
