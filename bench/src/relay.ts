// `pnpm relay [requests]`: the cost of serving a 2025-era session through a replica that does not own it
// (the Redis session relay of @pier/redis forwards it to the owner) against the owner serving it itself,
// and the latency of a change event raised on one replica reaching a listen stream on another (the Redis
// event bus). Two replica processes (packages/redis/test/replica.mjs) and a redis-server on loopback.
// Sequential requests on kept-alive connections, in alternating blocks so that machine drift hits both
// sides alike; CPU is the replicas' own (utime + stime from /proc), both processes summed.
import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { cpuMicros, freePort, needBinary, postJson, runStoppingChildren } from './harness/children.js';
import { quantile } from './harness/stats.js';

const FIXTURE = fileURLToPath(new URL('../../packages/redis/test/replica.mjs', import.meta.url));
const REQUESTS = Number(process.argv[2] ?? 3_000);
const BLOCKS = 6;
/**
 * Events per pass. Every path (Pier's and the floors) runs WARMUP events that are not counted, then a
 * cold pass of EVENTS (the first thousand after start), SETTLE events that are not counted, and a warm pass
 * of EVENTS: the measure the target is held to, a replica in service. While V8 is still optimising a path,
 * its compiler threads take the CPU the next hop waits for, and on two cores that makes the tail: with
 * `--trace-opt`, a replica optimised 70–150 functions in its first thousand events (after 500), 14–22 in
 * its third, and 0–10 per thousand after that (PROFILE.md). Both passes are printed.
 */
const EVENTS = 1_000;
/** Events sent first and not counted at all: each process's first few (V8 compiling the path, the first
 * XREAD turn) cost 10–50 ms once, which is start-up, not latency. */
const WARMUP = 20;
/** Events between the two passes, not counted: until V8 has mostly stopped optimising the path. */
const SETTLE = 2_000;
/** Events each path sends in all. */
const RUN = WARMUP + EVENTS + SETTLE + EVENTS;
const URI = 'notes://index';
const LEGACY = '2025-11-25';
const children: ChildProcess[] = [];

/** The floor of any HTTP relay: a bare node:http proxy (no Pier, no parsing) forwarding to the owner. */
const BARE_PROXY = `
const http = require('node:http');
const target = new URL(process.env.TARGET);
const agent = new http.Agent({ keepAlive: true, timeout: 2000 });
const server = http.createServer((req, res) => {
  const up = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: req.method, headers: req.headers, agent }, (answer) => {
    res.writeHead(answer.statusCode, answer.headers);
    answer.pipe(res);
  });
  req.pipe(up);
});
server.listen(0, '127.0.0.1', () => process.stdout.write('READY ' + server.address().port + '\\n'));
`;

/**
 * The floor of any relay at all: a TCP pipe in front of the owner that copies bytes both ways without
 * parsing them (what a multiplexed raw channel between replicas would still do: read and write every byte
 * once more on each side).
 */
const BARE_PIPE = `
const net = require('node:net');
const target = new URL(process.env.TARGET);
const server = net.createServer((client) => {
  client.setNoDelay(true);
  const up = net.connect({ host: target.hostname, port: Number(target.port), noDelay: true });
  client.pipe(up);
  up.pipe(client);
  client.on('error', () => up.destroy());
  up.on('error', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => process.stdout.write('READY ' + server.address().port + '\\n'));
`;

/**
 * A listen stream in a process of its own, reading raw bytes (no SDK client): when an update reaches a
 * client that does nothing else, free of the bench process's own work (the SDK client, the next POST).
 */
const RAW_LISTENER = `
const http = require('node:http');
const target = new URL(process.env.TARGET);
const body = JSON.stringify({ jsonrpc: '2.0', id: 'raw', method: 'subscriptions/listen', params: {
  notifications: { resourceSubscriptions: [process.env.URI] },
  _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' }, 'io.modelcontextprotocol/clientCapabilities': {} } } });
const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: {
  'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'subscriptions/listen', 'content-length': Buffer.byteLength(body) } }, (res) => {
  res.on('data', (chunk) => {
    const at = (performance.timeOrigin + performance.now()).toFixed(3);
    const text = chunk.toString();
    if (text.includes('subscriptions/acknowledged')) process.stdout.write('READY 1\\n');
    if (text.includes('notifications/resources/updated')) process.stdout.write('TRACE raw sse-in ' + at + '\\n');
  });
});
req.end(body);
process.once('SIGTERM', () => { req.destroy(); process.exit(0); });
`;

/**
 * The floor of a cross-process event without Pier: a reader that blocks in XREAD (raw RESP, no client
 * library) and writes each entry to its SSE clients as an update. The bench process raises (XADD on a raw
 * socket), so the event crosses the same processes as through Pier: raiser, Redis, reader, listener.
 */
const FLOOR_READER = `
const net = require('node:net');
const http = require('node:http');
const streams = new Set();
const redis = net.connect({ host: '127.0.0.1', port: Number(process.env.REDIS_PORT), noDelay: true });
const command = (...args) => '*' + args.length + '\\r\\n' + args.map((a) => '$' + Buffer.byteLength(a) + '\\r\\n' + a + '\\r\\n').join('');
let last = '$';
let reply = '';
const read = () => redis.write(command('XREAD', 'BLOCK', '1000', 'STREAMS', 'floor', last));
redis.on('data', (chunk) => {
  reply += chunk.toString();
  // Whole once it ends a line and, unless it is the null of a timed-out XREAD, holds the entry's JSON.
  if (!reply.endsWith('\\r\\n') || (reply !== '*-1\\r\\n' && reply.startsWith('*') && !reply.includes('}'))) return;
  for (const id of reply.match(/\\d+-\\d+/g) ?? []) last = id;
  for (const at of reply.match(/"at":[\\d.]+/g) ?? []) {
    const frame = 'event: message\\ndata: {"method":"notifications/resources/updated",' + at + '}\\n\\n';
    for (const res of streams) res.write(frame);
  }
  reply = '';
  read();
});
redis.once('connect', read);
const server = http.createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write('event: message\\ndata: {"method":"notifications/subscriptions/acknowledged"}\\n\\n');
  streams.add(res);
  res.once('close', () => streams.delete(res));
});
server.listen(0, '127.0.0.1', () => process.stdout.write('READY ' + server.address().port + '\\n'));
`;

/**
 * The floor with Pier's exchanges, not only its processes: a raiser answering an HTTP POST as the `bump`
 * tool does (stamp the raise, XADD on a raw socket, then answer with the stamp), and the bench listening
 * too, so that, as through Pier, the raiser writes its answer and the bench reads it while Redis, the
 * reader and both listeners carry the event, on the same two cores.
 */
const FLOOR_RAISER = `
const net = require('node:net');
const http = require('node:http');
const redis = net.connect({ host: '127.0.0.1', port: Number(process.env.REDIS_PORT), noDelay: true });
redis.on('data', () => {});
const server = http.createServer((req, res) => {
  req.resume();
  req.once('end', () => {
    const at = String(performance.timeOrigin + performance.now());
    const entry = JSON.stringify({ at: Number(at) });
    redis.write('*5\\r\\n$4\\r\\nXADD\\r\\n$5\\r\\nfloor\\r\\n$1\\r\\n*\\r\\n$1\\r\\nm\\r\\n$' + Buffer.byteLength(entry) + '\\r\\n' + entry + '\\r\\n');
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: at }] } });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
redis.once('connect', () => server.listen(0, '127.0.0.1', () => process.stdout.write('READY ' + server.address().port + '\\n')));
`;

/** `TRACE <who> <stage> <ms>` lines of every child, in arrival order. */
const traces: { who: string; stage: string; at: number }[] = [];
/** Told of every trace line and every notification the bench's client receives. */
const arrivals = new EventEmitter();

/**
 * Resolves with `check()`'s first defined value, re-checked on every arrival: the bench sleeps until
 * something arrives rather than polling, so its own wake-ups take no CPU from the processes measured.
 */
function until<T>(check: () => T | undefined, what: string, ms = 2_000): Promise<T> {
  const found = check();
  if (found !== undefined) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const onArrival = () => {
      const value = check();
      if (value === undefined) return;
      clearTimeout(timer);
      arrivals.off('arrival', onArrival);
      resolve(value);
    };
    const timer = setTimeout(() => {
      arrivals.off('arrival', onArrival);
      reject(new Error(`${what} never arrived`));
    }, ms);
    arrivals.on('arrival', onArrival);
  });
}

function start(command: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<string> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start:\n${output}`)), 30_000);
    let partial = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      partial += text;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const [tag, who, stage, at] = line.split(' ');
        if (tag === 'TRACE' && who && stage) {
          traces.push({ who, stage, at: Number(at) });
          arrivals.emit('arrival');
        }
      }
      if (output.length > 100_000) return; // past start-up only traces matter
      output += text;
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] ?? '');
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command} exited with ${String(code)}:\n${output}`)));
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const post = (url: string, headers: Record<string, string>, body: unknown) =>
  postJson(agent, url, headers, body);

/** `p50 …, p99 …, max …` of sorted latencies, in ms. */
const spread = (sorted: number[]) =>
  `p50 ${quantile(sorted, 0.5).toFixed(2)} ms, p99 ${quantile(sorted, 0.99).toFixed(2)} ms, max ${(sorted.at(-1) ?? NaN).toFixed(2)} ms`;
/** The warm pass against the target, then the cold one (the first EVENTS after start) for reference. */
const verdict = (latencies: number[], target?: number) => {
  const warm = latencies.slice(EVENTS + SETTLE).sort((a, b) => a - b);
  const cold = latencies.slice(0, EVENTS).sort((a, b) => a - b);
  const met =
    target === undefined
      ? ''
      : ` (target p99 ≤ ${target} ms: ${quantile(warm, 0.99) <= target ? 'met' : 'missed'})`;
  return `warm ${spread(warm)}${met}; cold (the first ${EVENTS} after start) ${spread(cold)}`;
};
/** The raise time a `bump` answer (or the floor raiser's) carries as its text. */
const stampOf = (text: string) =>
  Number((JSON.parse(text) as { result: { content: { text: string }[] } }).result.content[0]?.text);
/** When `who` passed `stage`, among the traces that arrived since `mark`. */
const traceAt = (mark: number, who: string, stage: string) =>
  traces.slice(mark).find((t) => t.who === who && t.stage === stage)?.at;
const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

async function main(): Promise<void> {
  needBinary('pnpm relay', 'redis-server', 'apt-get install -y redis-server');
  const redisPort = await freePort();
  await start(
    'redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {},
    /(Ready to accept connections)/,
  );
  // RELAY_TRACE=1: the replicas stamp each stage of an event's way (see test/replica.mjs), for PROFILE.md.
  const trace = process.env.RELAY_TRACE === '1';
  const env = {
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    RELAY: '1',
    BUS: '1',
    PREFIX: 'bench:',
    ...(trace && { TRACE: '1' }),
  };
  // RELAY_EVENTS=<file>: each event's raise time and latencies, and each replica's GC pauses beside it
  // (<file>.gc-a.json, <file>.gc-b.json), for PROFILE.md.
  const eventsFile = process.env.RELAY_EVENTS;
  // With it, the replicas also stamp each stage in memory (<file>.trace-a.json, <file>.trace-b.json).
  const eventLogs = (id: string) =>
    eventsFile
      ? {
          GC_LOG: `${eventsFile}.gc-${id}.json`,
          TRACE: '1',
          TRACE_LOG: `${eventsFile}.trace-${id}.json`,
        }
      : {};
  // RELAY_PROFILE=<dir>: CPU profiles of both replicas, for PROFILE.md.
  const profile = process.env.RELAY_PROFILE
    ? ['--cpu-prof', '--cpu-prof-interval=50', `--cpu-prof-dir=${process.env.RELAY_PROFILE}`]
    : [];
  const [portA, portB] = await Promise.all([
    start(
      process.execPath,
      [...profile, FIXTURE],
      { ...env, ...eventLogs('a'), REPLICA_ID: 'a' },
      /READY (\d+)/,
    ),
    start(
      process.execPath,
      [...profile, FIXTURE],
      { ...env, ...eventLogs('b'), REPLICA_ID: 'b' },
      /READY (\d+)/,
    ),
  ]);
  const owner = `http://127.0.0.1:${portA}/mcp`;
  const other = `http://127.0.0.1:${portB}/mcp`;
  const pids = children.slice(1).map((child) => child.pid as number);
  const proxyPort = await start(process.execPath, ['-e', BARE_PROXY], { TARGET: owner }, /READY (\d+)/);
  const proxy = `http://127.0.0.1:${proxyPort}/mcp`;
  const proxyPid = children.at(-1)?.pid as number;
  const pipePort = await start(process.execPath, ['-e', BARE_PIPE], { TARGET: owner }, /READY (\d+)/);
  const pipe = `http://127.0.0.1:${pipePort}/mcp`;
  const pipePid = children.at(-1)?.pid as number;

  // One session, opened on A.
  const opened = await post(
    owner,
    { 'mcp-protocol-version': LEGACY },
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
    },
  );
  const session = opened.session as string;
  const inSession = { 'mcp-protocol-version': LEGACY, 'mcp-session-id': session };
  await post(owner, inSession, { jsonrpc: '2.0', method: 'notifications/initialized' });

  let id = 1;
  const call = async (url: string) => {
    const started = performance.now();
    const answer = await post(url, inSession, {
      jsonrpc: '2.0',
      id: id++,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {} },
    });
    if (answer.status !== 200 || !answer.text.includes('"a"'))
      throw new Error(`unexpected answer ${answer.status}: ${answer.text}`);
    return performance.now() - started;
  };

  const sides = {
    local: { ms: [] as number[], cpu: 0, n: 0 },
    relayed: { ms: [] as number[], cpu: 0, n: 0 },
    proxied: { ms: [] as number[], cpu: 0, n: 0 },
    piped: { ms: [] as number[], cpu: 0, n: 0 },
  };
  const plan = [
    { side: sides.local, url: owner },
    { side: sides.relayed, url: other },
    { side: sides.proxied, url: proxy },
    { side: sides.piped, url: pipe },
  ];
  // Each way warmed as the events are (see SETTLE): V8 optimising the relay's path while it is timed would
  // count its compiler threads' CPU against the hop.
  for (let i = 0; i < (EVENTS + SETTLE) * plan.length; i++) {
    await call((plan[i % plan.length] as (typeof plan)[number]).url);
  }
  const perBlock = Math.ceil(REQUESTS / BLOCKS);
  const allPids = [...pids, proxyPid, pipePid];
  for (let block = 0; block < BLOCKS * plan.length; block++) {
    const { side, url } = plan[block % plan.length] as (typeof plan)[number];
    const cpuBefore = allPids.reduce((sum, pid) => sum + cpuMicros(pid), 0);
    for (let i = 0; i < perBlock; i++) side.ms.push(await call(url));
    side.cpu += allPids.reduce((sum, pid) => sum + cpuMicros(pid), 0) - cpuBefore;
    side.n += perBlock;
  }

  // Cross-replica notifications: a 2026-07-28 listen stream on A, updates raised on B.
  const client = new Client(
    { name: 'bench-listen', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  const received: number[] = [];
  client.setNotificationHandler('notifications/resources/updated', () => {
    received.push(performance.timeOrigin + performance.now());
    arrivals.emit('arrival');
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(owner)));
  await client.listen({ resourceSubscriptions: [URI] });
  await start(process.execPath, ['-e', RAW_LISTENER], { TARGET: owner, URI }, /READY (\d+)/);
  const rawListenerPid = children.at(-1)?.pid;
  const latencies: number[] = [];
  const rawLatencies: number[] = [];
  const raises: number[] = [];
  /** Per event: when it passed each stage, relative to its raise. */
  const staged: Record<string, number>[] = [];
  /** Raises one event on B through `tool`; when it was raised and when the bench's client heard it. */
  const raiseOnce = async (tool: string) => {
    const before = received.length;
    const answer = await post(
      other,
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': tool },
      {
        jsonrpc: '2.0',
        id: id++,
        method: 'tools/call',
        params: {
          name: tool,
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
    );
    const raisedAt = stampOf(answer.text);
    return { raisedAt, arrived: await until(() => received[before], 'an update') };
  };
  for (let i = 0; i < RUN; i++) {
    const mark = traces.length;
    const { raisedAt, arrived } = await raiseOnce('bump');
    const stageAt = async (who: string, stage: string) =>
      (await until(() => traceAt(mark, who, stage), `${stage} from ${who}`)) - raisedAt;
    const raw = await stageAt('raw', 'sse-in');
    if (i < WARMUP) continue;
    raises.push(raisedAt);
    latencies.push(arrived - raisedAt);
    rawLatencies.push(raw);
    if (trace) {
      staged.push({
        'xadd-out (B)': await stageAt('b', 'xadd-out'),
        'xread-in (A)': await stageAt('a', 'xread-in'),
        'deliver (A)': await stageAt('a', 'deliver'),
        'sse-out (A)': await stageAt('a', 'sse-out'),
        'raw client': rawLatencies.at(-1) as number,
        'SDK client (bench process)': arrived - raisedAt,
      });
    }
  }
  // The same events raised by `bump_ctx`, which declares its context. Before core's request engine (issue
  // 31), B built an SDK server per such call; now both tools take the engine's one path, and this line
  // shows that a handler's context adds nothing to the event's way.
  const sdkPathLatencies: number[] = [];
  for (let i = 0; i < RUN; i++) {
    const mark = traces.length;
    const { raisedAt, arrived } = await raiseOnce('bump_ctx');
    await until(() => traceAt(mark, 'raw', 'sse-in'), 'sse-in from raw');
    if (i >= WARMUP) sdkPathLatencies.push(arrived - raisedAt);
  }
  await client.close();

  // The floor: the same processes crossed without Pier (see FLOOR_READER).
  const floorPort = await start(
    process.execPath,
    ['-e', FLOOR_READER],
    { REDIS_PORT: String(redisPort) },
    /READY (\d+)/,
  );
  await start(
    process.execPath,
    ['-e', RAW_LISTENER],
    { TARGET: `http://127.0.0.1:${floorPort}/`, URI },
    /READY (\d+)/,
  );
  const raiser = connect({ host: '127.0.0.1', port: redisPort, noDelay: true });
  raiser.on('data', () => {}); // XADD replies
  await new Promise((resolve) => raiser.once('connect', resolve));
  const floorLatencies: number[] = [];
  for (let i = 0; i < RUN; i++) {
    const mark = traces.length;
    const at = performance.timeOrigin + performance.now();
    const entry = JSON.stringify({ at });
    raiser.write(
      `*5\r\n$4\r\nXADD\r\n$5\r\nfloor\r\n$1\r\n*\r\n$1\r\nm\r\n$${Buffer.byteLength(entry)}\r\n${entry}\r\n`,
    );
    const arrived = await until(() => traceAt(mark, 'raw', 'sse-in'), 'a floor event');
    if (i >= WARMUP) floorLatencies.push(arrived - at);
    // As much spacing as a bump request gives the events through Pier.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  raiser.destroy();

  // The floor with Pier's exchanges (see FLOOR_RAISER): raised by a POST, heard by the bench too.
  const raiserPort = await start(
    process.execPath,
    ['-e', FLOOR_RAISER],
    { REDIS_PORT: String(redisPort) },
    /READY (\d+)/,
  );
  const benchHeard: number[] = [];
  const benchListen = request(`http://127.0.0.1:${floorPort}/`, { method: 'POST' }, (res) => {
    res.on('data', (chunk: Buffer) => {
      if (!chunk.includes('notifications/resources/updated')) return;
      benchHeard.push(performance.timeOrigin + performance.now());
      arrivals.emit('arrival');
    });
  });
  benchListen.end();
  const exchangeLatencies: number[] = [];
  for (let i = 0; i < RUN; i++) {
    const mark = traces.length;
    const heard = benchHeard.length;
    const answer = await post(`http://127.0.0.1:${raiserPort}/`, {}, { bump: i });
    const at = stampOf(answer.text);
    const arrived = await until(() => traceAt(mark, 'raw', 'sse-in'), 'a floor event');
    await until(() => benchHeard[heard], 'a floor event at the bench');
    if (i >= WARMUP) exchangeLatencies.push(arrived - at);
  }
  benchListen.destroy();

  const local = { p50: median(sides.local.ms), cpu: sides.local.cpu / sides.local.n };
  const relayed = { p50: median(sides.relayed.ms), cpu: sides.relayed.cpu / sides.relayed.n };
  const proxied = { p50: median(sides.proxied.ms), cpu: sides.proxied.cpu / sides.proxied.n };
  const piped = { p50: median(sides.piped.ms), cpu: sides.piped.cpu / sides.piped.n };
  if (eventsFile) {
    writeFileSync(
      eventsFile,
      JSON.stringify(
        raises.map((at, i) => ({
          at,
          pass: i < EVENTS ? 'cold' : i < EVENTS + SETTLE ? 'settling' : 'warm',
          sdk: latencies[i],
          raw: rawLatencies[i],
        })),
      ),
    );
    // Who is who, and the wall clock's offset from CLOCK_MONOTONIC (what `perf sched record -k mono` stamps),
    // for relay-sched.ts to line the events up with the scheduler's trace.
    writeFileSync(
      `${eventsFile}.pids.json`,
      JSON.stringify({
        monoOffsetMs: performance.timeOrigin + performance.now() - Number(process.hrtime.bigint()) / 1e6,
        pids: {
          [process.pid]: 'bench',
          [children[0]?.pid ?? 0]: 'redis',
          [pids[0] ?? 0]: 'A',
          [pids[1] ?? 0]: 'B',
          [rawListenerPid ?? 0]: 'raw listener',
        },
      }),
    );
  }
  const ratio = relayed.p50 / local.p50;
  const cpuRatio = relayed.cpu / local.cpu;
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, load average ${load}; ${sides.local.n} requests per side in ${BLOCKS} alternating blocks, on each path ${WARMUP} events not counted, ${EVENTS} cold (the first after start), ${SETTLE} not counted, ${EVENTS} warm (the measure).`,
    '',
    '| measure | local (owner) | relayed (other replica → owner) | ratio | target | verdict |',
    '| --- | --- | --- | --- | --- | --- |',
    `| 2025 session tools/call, latency p50 | ${local.p50.toFixed(3)} ms | ${relayed.p50.toFixed(3)} ms | ${ratio.toFixed(2)}× | ≤ 1.5× | ${ratio <= 1.5 ? 'met' : 'missed'} |`,
    `| same, p99 | ${quantile(
      [...sides.local.ms].sort((a, b) => a - b),
      0.99,
    ).toFixed(3)} ms | ${quantile(
      [...sides.relayed.ms].sort((a, b) => a - b),
      0.99,
    ).toFixed(3)} ms | | | |`,
    `| same, replicas' CPU per request (both processes) | ${local.cpu.toFixed(0)} µs | ${relayed.cpu.toFixed(0)} µs | ${cpuRatio.toFixed(2)}× | ≤ 1.5× | ${cpuRatio <= 1.5 ? 'met' : 'missed'} |`,
    `| reference: a bare node:http proxy in front of the owner (no Pier), p50 / CPU | | ${proxied.p50.toFixed(3)} ms / ${proxied.cpu.toFixed(0)} µs | ${(proxied.p50 / local.p50).toFixed(2)}× / ${(proxied.cpu / local.cpu).toFixed(2)}× | | |`,
    `| reference: a bare TCP pipe in front of the owner (no HTTP parsing), p50 / CPU | | ${piped.p50.toFixed(3)} ms / ${piped.cpu.toFixed(0)} µs | ${(piped.p50 / local.p50).toFixed(2)}× / ${(piped.cpu / local.cpu).toFixed(2)}× | | |`,
    '',
    `Cross-replica notification (raised on B, received by a 2026-07-28 listen stream on A, through the Redis event bus): ${verdict(latencies, 5)}.`,
    `Raised instead by a tool that declares its context (\`bump_ctx\`; before the request engine, an SDK server per call on B), same client: ${verdict(sdkPathLatencies, 5)}.`,
    `Same events, read as raw bytes by a listener in a process of its own: ${verdict(rawLatencies, 5)}.`,
    `Floor, the same processes without Pier (raw XADD → Redis → a raw XREAD reader → SSE → the raw listener): ${verdict(floorLatencies)}.`,
    `Floor with the same exchanges, still without Pier (the bench POSTs to a bare raiser that XADDs and answers; the reader writes to the bench's stream and the raw listener's; read by the raw listener): ${verdict(exchangeLatencies)}.`,
  ];
  if (trace) {
    lines.push(
      '',
      '| stage (ms after the raise on B), warm pass | p50 | p90 | p99 | max |',
      '| --- | --- | --- | --- | --- |',
    );
    // The warm pass, as the latencies above.
    for (const stage of Object.keys(staged[0] ?? {})) {
      const values = staged
        .slice(EVENTS + SETTLE)
        .map((row) => row[stage] as number)
        .sort((a, b) => a - b);
      lines.push(
        `| ${stage} | ${[0.5, 0.9, 0.99, 1].map((q) => quantile(values, q).toFixed(2)).join(' | ')} |`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

await runStoppingChildren(children, main, () => agent.destroy());
