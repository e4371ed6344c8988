// One measurement each: tools/call or health throughput, correctness, memory per session, stampede.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadAnswer, LoadJob, LoadRequest, LoadResult } from '../load/loader.js';
import {
  askingRetry,
  type CallShape,
  ECHO_TEXT,
  type Era,
  echoedText,
  echoRequest,
  inputRequired,
  type McpRequest,
  openSession,
  parseRpc,
  rpcMessages,
} from '../load/requests.js';
import { type RunningServer, startServer } from './process.js';
import type { ServerSpec } from './servers.js';

const LOADER = join(dirname(fileURLToPath(import.meta.url)), '..', 'load', 'loader.js');

/** What the load generator measured, plus the server's own CPU time per request. */
export interface ThroughputSample extends LoadResult {
  readonly cpuUsPerRequest: number;
}

/**
 * A measured target: tools/call in one era (echo, or the tool shape `call`), or GET of a health path.
 * `expect` checks a tools/call answer beyond the echoed text (verify only, never under load).
 */
export type Scenario =
  | { readonly era: Era; readonly call?: CallShape; readonly expect?: AnswerCheck }
  | { readonly get: string };

/**
 * What a shape's answer must hold: its JSON-RPC response and every message of its body (SSE events before
 * the response included); a problem, or undefined when the answer is right.
 */
export type AnswerCheck = (response: unknown, messages: readonly unknown[]) => string | undefined;

/** Runs the load generator in its own process against `server`, after a warm-up that is not recorded. */
export async function throughput(
  server: RunningServer,
  scenario: Scenario,
  options: {
    readonly seconds: number;
    readonly warmupSeconds: number;
    readonly connections: number;
    /** Extra headers on every POST (an `Authorization` for a protected server); default the server's own. */
    readonly headers?: Readonly<Record<string, string>>;
  },
): Promise<ThroughputSample> {
  const headers = options.headers ?? server.headers;
  const job = (seconds: number): LoadJob => ({
    base: server.base,
    connections: options.connections,
    seconds,
    ...(headers !== undefined && { headers }),
    ...('get' in scenario
      ? { path: scenario.get }
      : {
          path: '/mcp',
          era: scenario.era,
          ...(scenario.call !== undefined && { call: scenario.call }),
          sessions: server.spec.sessionful && scenario.era === 'legacy',
        }),
  });
  if (options.warmupSeconds > 0) await load(job(options.warmupSeconds));
  const before = await server.stats();
  const result = await load(job(options.seconds));
  const after = await server.stats();
  const cpuUs = after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system;
  return { ...result, cpuUsPerRequest: cpuUs / Math.max(1, result.requests) };
}

let loader: ChildProcess | undefined;
let nextJob = 0;

/** Runs one job in the load generator's process (started on first use, reused for the run). */
function load(job: LoadJob): Promise<LoadResult> {
  loader ??= fork(LOADER, [], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const child = loader;
  const request: LoadRequest = { ...job, id: nextJob++ };
  return new Promise((resolve, reject) => {
    // autocannon stops by itself after job.seconds; this only guards against a hang.
    const timer = setTimeout(
      () => {
        stopLoader();
        reject(new Error(`the load generator did not answer within ${job.seconds + 30} s`));
      },
      (job.seconds + 30) * 1_000,
    );
    const onMessage = (answer: LoadAnswer & { id: number }): void => {
      if (answer.id !== request.id) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      if (answer.ok) resolve(answer);
      else reject(new Error(`load generator: ${answer.error}`));
    };
    child.on('message', onMessage);
    child.send(request);
  });
}

/** Ends the load generator's process (the end of a run). */
export function stopLoader(): void {
  loader?.kill('SIGKILL');
  loader = undefined;
}

/** One correctness check of a server: what was sent, and whether the answer was right. */
export interface Verification {
  readonly server: string;
  readonly check: string;
  readonly ok: boolean;
  readonly detail: string;
}

/**
 * Sends each tools/call scenario once (`scenarios`, default echo in each era the server speaks) and checks
 * the answer, then GETs the server's health paths; never throws.
 */
export async function verify(
  server: RunningServer,
  scenarios: readonly {
    readonly era: Era;
    readonly call?: CallShape;
    readonly expect?: AnswerCheck;
  }[] = server.spec.eras.map((era) => ({ era })),
): Promise<Verification[]> {
  const { spec } = server;
  const checks: Verification[] = [];
  const record = async (check: string, body: () => Promise<string | undefined>): Promise<void> => {
    try {
      const problem = await body();
      checks.push({ server: spec.id, check, ok: problem === undefined, detail: problem ?? 'ok' });
    } catch (error) {
      checks.push({ server: spec.id, check, ok: false, detail: (error as Error).message });
    }
  };
  for (const { era, call, expect } of scenarios) {
    const tool = call?.tool ?? 'echo';
    await record(`tools/call ${tool} (${era})`, async () => {
      const sessionId =
        spec.sessionful && era === 'legacy'
          ? await openSession(`${server.base}/mcp`, { headers: server.headers, logLevel: call?.logLevel })
          : undefined;
      let answer = await post(server, echoRequest(era, 42, sessionId, call));
      if (typeof answer === 'string') return answer;
      if (era === 'input-required') {
        const next = inputRequired(answer.message);
        if (next === undefined) return `round one was not input_required: ${answer.text.slice(0, 200)}`;
        answer = await post(server, askingRetry(43, next.key, next.requestState));
        if (typeof answer === 'string') return answer;
      }
      if (expect !== undefined) {
        const problem = expect(answer.message, answer.messages);
        return problem === undefined ? undefined : `${problem}: ${answer.text.slice(0, 300)}`;
      }
      const echoed = echoedText(answer.message);
      return echoed === ECHO_TEXT
        ? undefined
        : `echoed ${JSON.stringify(echoed)}: ${answer.text.slice(0, 200)}`;
    });
  }
  for (const path of new Set(['/health', spec.live, spec.ready])) {
    await record(`GET ${path}`, async () => {
      const response = await fetch(server.base + path);
      const text = await response.text();
      if (response.status !== 200) return `HTTP ${response.status}: ${text.slice(0, 200)}`;
      if (path.endsWith('/ready') && spec.countsChecks && !text.includes('"healthy"')) return `body ${text}`;
      return undefined;
    });
  }
  return checks;
}

/** POSTs one MCP request; its JSON-RPC answer and every message of the body, or what went wrong. */
async function post(
  server: RunningServer,
  { headers, body }: McpRequest,
): Promise<{ message: unknown; messages: unknown[]; text: string } | string> {
  const response = await fetch(`${server.base}/mcp`, {
    method: 'POST',
    headers: { ...headers, ...server.headers },
    body,
  });
  const text = await response.text();
  if (response.status !== 200) return `HTTP ${response.status}: ${text.slice(0, 200)}`;
  const type = response.headers.get('content-type');
  return { message: parseRpc(type, text), messages: rpcMessages(type, text), text };
}

/** Memory of one idle 2025-era session, from `count` sessions opened in a fresh server. */
export interface MemorySample {
  readonly sessions: number;
  /** Once the server sat idle for `settleMs` (V8 returns unused heap pages then), after forced GC. */
  readonly rssBytesPerSession: number;
  readonly heapBytesPerSession: number;
  /** Heap reserved (heapTotal) and memory outside the JS heap (external), per session, settled. */
  readonly heapTotalBytesPerSession: number;
  readonly externalBytesPerSession: number;
  /** RSS per session right after the sessions were opened (forced GC, no idle time). */
  readonly rssBytesPerSessionImmediate: number;
  readonly settleMs: number;
  readonly rssBeforeBytes: number;
  readonly rssAfterBytes: number;
  /**
   * Sessions of the burst that still answered a `ping` after the last reading, of those asked (ten,
   * spread over the burst): a server that dropped its idle sessions would look small for the wrong reason.
   */
  readonly alive?: { readonly answered: number; readonly asked: number };
}

/**
 * A fresh server; 20 sessions to warm up; idle for `settleMs`; forced GC and a reading; `count` more
 * sessions; a reading right away (forced GC) and another after `settleMs` idle. Idle matters: right after a
 * burst V8 keeps the heap pages it grew into, and gives them back when its memory reducer runs on an idle
 * process — which an idle session's server is.
 */
export async function memoryPerSession(
  spec: ServerSpec,
  count: number,
  settleMs: number,
): Promise<MemorySample> {
  const server = await startServer(spec);
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, settleMs));
  try {
    const endpoint = `${server.base}/mcp`;
    // Warm every code path a session uses, so that the baseline already holds the code and caches.
    await openMany(endpoint, 20);
    await settle();
    const before = (await server.stats(true)).memory;
    const opened = await openMany(endpoint, count);
    const immediate = (await server.stats(true)).memory;
    await settle();
    const after = (await server.stats(true)).memory;
    const sampled = opened
      .filter((_, i) => i % Math.max(1, Math.floor(opened.length / 10)) === 0)
      .slice(0, 10);
    const answers = await Promise.all(sampled.map((sessionId) => pings(endpoint, sessionId)));
    const perSession = (key: keyof NodeJS.MemoryUsage, end = after): number =>
      (end[key] - before[key]) / count;
    return {
      sessions: count,
      rssBytesPerSession: perSession('rss'),
      heapBytesPerSession: perSession('heapUsed'),
      heapTotalBytesPerSession: perSession('heapTotal'),
      externalBytesPerSession: perSession('external'),
      rssBytesPerSessionImmediate: perSession('rss', immediate),
      settleMs,
      rssBeforeBytes: before.rss,
      rssAfterBytes: after.rss,
      alive: { answered: answers.filter(Boolean).length, asked: sampled.length },
    };
  } finally {
    await server.stop();
  }
}

/** Opens `count` sessions, 100 at a time (fastmcp takes about a second to set each one up); their ids. */
async function openMany(endpoint: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  let opened = 0;
  const worker = async (): Promise<void> => {
    while (opened < count) {
      opened += 1;
      ids.push(await openSession(endpoint));
    }
  };
  await Promise.all(Array.from({ length: Math.min(100, count) }, worker));
  return ids;
}

/** Whether the session still answers a 2025-era `ping`. */
async function pings(endpoint: string, sessionId: string): Promise<boolean> {
  try {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        'mcp-session-id': sessionId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return (
      response.status === 200 && 'result' in (parseRpc(response.headers.get('content-type'), text) as object)
    );
  } catch {
    return false;
  }
}

/** How many times each check ran while `probes` concurrent GET /health/ready were answered. */
export interface StampedeSample {
  readonly probes: number;
  readonly callsPerCheck: Readonly<Record<string, number>>;
  readonly statuses: Readonly<Record<string, number>>;
  readonly wallMs: number;
}

export async function stampede(spec: ServerSpec, probes: number): Promise<StampedeSample> {
  const server = await startServer(spec);
  const sockets: Socket[] = [];
  try {
    // Let the cached result of the start-up probe expire (TTL 1 s), so the stampede finds no cache.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const { port } = new URL(server.base);
    // Connect every probe first, then send them all at once: the server sees 1,000 requests
    // within a few milliseconds, not spread over the time it takes to open 1,000 connections.
    for (let i = 0; i < probes; i += 1) sockets.push(connect(Number(port), '127.0.0.1'));
    await Promise.all(sockets.map((socket) => once(socket, 'connect')));
    const before = (await server.stats()).counters;
    const started = performance.now();
    const raw = `GET ${spec.ready} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`;
    const codes = await Promise.all(sockets.map((socket) => statusOf(socket, raw)));
    const wallMs = performance.now() - started;
    const after = (await server.stats()).counters;
    const callsPerCheck = Object.fromEntries(
      Object.keys(after).map((name) => [name, (after[name] ?? 0) - (before[name] ?? 0)]),
    );
    const statuses: Record<string, number> = {};
    for (const code of codes) statuses[code] = (statuses[code] ?? 0) + 1;
    return { probes, callsPerCheck, statuses, wallMs };
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.stop();
  }
}

/** Sends one raw HTTP/1.1 request on a connected socket; resolves with the status code (bounded). */
function statusOf(socket: Socket, raw: string): Promise<string> {
  return new Promise((resolve) => {
    let head = '';
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      head += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 'no answer');
    });
    socket.write(raw);
  });
}
