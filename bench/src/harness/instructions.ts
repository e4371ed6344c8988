// The instructions one request costs a server, counted by valgrind's callgrind (user space), which no other
// process on the machine can disturb — the figure to compare when CPU times swing with the load. Two
// figures: the main thread (JavaScript, builtins, V8's runtime, main-thread GC: ±1 % from run to run) and
// every thread (also the JIT's and GC helpers' threads, whose share moves with the timing: counts of the same
// server under a load average of 10 and of 25 differed by a fifth). The server starts with instrumentation off (start-up is not counted), is
// warmed with `warm` requests (the JIT must have settled: with fewer than a few thousand the counts still
// fall), then the counters are zeroed, `measured` requests are sent over `connections` keep-alive
// connections and the counters dumped. Kernel time (the socket write) is not counted. Needs valgrind
// (`callgrind_control`). Used by `node dist/instructions.js` and by the full run (the middleware target).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallShape, ECHO_CALL, legacyCall, modernCall, openSession } from '../load/requests.js';
import { sharedIssuer } from './auth-issuer.js';
import type { ServerSpec } from './servers.js';

const START_LIMIT_MS = 180_000;

export interface InstructionOptions {
  /** `modern` or `legacy` (stateless tools/call of `call`), or a GET path. */
  readonly what: string;
  readonly call?: CallShape;
  readonly warm?: number;
  readonly measured?: number;
  readonly connections?: number;
  /** More node options (`--import` of a redirect hook) and environment. */
  readonly execArgv?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/** Whether valgrind's callgrind can be run here. */
export function hasCallgrind(): boolean {
  try {
    execFileSync('callgrind_control', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Instructions per request of `spec`'s server, user space: its main thread, and every thread. */
export interface InstructionCount {
  readonly main: number;
  readonly all: number;
  /**
   * Of `main`, what V8's garbage collector ran on the main thread (scavenges, marking, sweeping). It is
   * what moves most between two runs of one server (a collection more or less in the measured window:
   * ±5 k a request), so `main - gc` compares code paths more steadily; allocation is still paid in `gc`.
   */
  readonly gc: number;
}

/** Functions of V8's heap and collectors, by name in `callgrind_annotate`'s output. */
const GC_FUNCTION =
  /Scaveng|Heap::|heap::|MarkCompact|Sweeper|Evacuat|GCTracer|Marking|MemoryAllocator|PagedSpace|SemiSpace|NewSpace/;

/** The instructions of `file` (one thread's dump) spent in the collector's functions. */
function gcInstructions(file: string, cwd: string): number {
  const annotated = execFileSync('callgrind_annotate', ['--threshold=100', file], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  let gc = 0;
  for (const line of annotated.split('\n')) {
    const match = /^\s*([\d,]+)\s.*\?\?\?:(.*)$/.exec(line);
    if (match !== null && GC_FUNCTION.test(match[2] as string))
      gc += Number((match[1] as string).replaceAll(',', ''));
  }
  return gc;
}

/** Counts {@link InstructionCount} per request of `spec`'s server. */
export async function countInstructions(
  spec: ServerSpec,
  options: InstructionOptions,
): Promise<InstructionCount> {
  const { what, call = ECHO_CALL, warm = 6_000, measured = 4_000, connections = 8 } = options;
  const port = await freePort();
  const issuer = spec.auth === true ? await sharedIssuer() : undefined;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...spec.env,
    ...options.env,
    PORT: String(port),
    ...(issuer !== undefined && { BENCH_AUTH_ISSUER: issuer.url }),
  };
  const out = mkdtempSync(join(tmpdir(), 'pier-instructions-'));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--separate-threads=yes',
      `--callgrind-out-file=${out}/cg.%p`,
      process.execPath,
      ...(options.execArgv ?? []),
      spec.program,
    ],
    { env, stdio: ['ignore', 'ignore', 'pipe'], cwd: out },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-3_000);
  });
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const auth =
    issuer === undefined
      ? {}
      : { authorization: `Bearer ${await issuer.token('ES256', `http://127.0.0.1:${port}/mcp`)}` };

  // A sessionful server's 2025 requests all go to one session, opened once the server is up.
  const sessionful = spec.sessionful === true && what === 'legacy';
  let sessionId: string | undefined;
  /** One request; resolves on a 200, rejects otherwise. */
  const send = (n: number): Promise<void> => {
    const get = what.startsWith('/');
    const mcp = get ? undefined : what === 'modern' ? modernCall(n, call) : legacyCall(n, call, sessionId);
    const headers: Record<string, string | number> =
      mcp === undefined ? {} : { ...mcp.headers, ...auth, 'content-length': Buffer.byteLength(mcp.body) };
    return new Promise((done, fail) => {
      const req = request(
        { host: '127.0.0.1', port, agent, method: get ? 'GET' : 'POST', path: get ? what : '/mcp', headers },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? done() : fail(new Error(`HTTP ${res.statusCode}`))));
        },
      );
      req.on('error', fail);
      req.end(mcp?.body);
    });
  };
  /** Retries a request cut by the server's keep-alive or request timeout (it runs 50× slower under valgrind). */
  const sendRetrying = async (n: number): Promise<void> => {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await send(n);
      } catch (error) {
        if (attempt >= 3 || !/ECONNRESET|socket hang up|HTTP 408/.test(String(error))) throw error;
      }
    }
  };
  let next = 1;
  const load = async (total: number): Promise<void> => {
    const end = next + total;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < end) await sendRetrying(next++);
      }),
    );
  };

  try {
    const deadline = Date.now() + START_LIMIT_MS;
    for (;;) {
      try {
        if (sessionful) {
          sessionId = await openSession(`http://127.0.0.1:${port}/mcp`, {
            headers: auth,
            logLevel: call.logLevel,
          });
        } else await send(0);
        break;
      } catch {
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`${spec.id} did not start under valgrind\n${stderr}`);
        }
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
    // One file per thread of the dump (`cg.<pid>.<dump>-<thread>`); the main thread's says `thread: 1`.
    let main = 0;
    let all = 0;
    let gc = 0;
    for (const file of readdirSync(out)) {
      if (!/^cg\.\d+\.\d+-\d+$/.test(file)) continue;
      const text = readFileSync(join(out, file), 'utf8');
      const counted = /^(?:totals|summary): (\d+)/m.exec(text);
      if (counted === null) continue;
      all += Number(counted[1]);
      if (/^thread: 1$/m.test(text)) {
        main += Number(counted[1]);
        gc += gcInstructions(file, out);
      }
    }
    if (main === 0) throw new Error(`${spec.id}: callgrind wrote no count of the main thread`);
    return { main: main / measured, all: all / measured, gc: gc / measured };
  } finally {
    child.kill('SIGKILL');
    agent.destroy();
    // BENCH_CALLGRIND_KEEP=DIR keeps the dumps (for `callgrind_annotate`: which builtins a change adds).
    const keep = process.env.BENCH_CALLGRIND_KEEP;
    if (keep !== undefined && keep !== '') cpSync(out, join(keep, spec.id), { recursive: true });
    rmSync(out, { recursive: true, force: true });
  }
}

/** A port that was free a moment ago. */
function freePort(): Promise<number> {
  return new Promise((done) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
  });
}
