// Bench-only plumbing shared by every server program: the port, canned health routes for the
// reference servers, and an IPC control channel (memory, CPU, forced GC, GC pauses, counters, clean exit).
// None of this is on the measured request path except `cannedHealth` in the reference servers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';

/** What a server answers on the control channel when asked for `stats`. */
export interface ServerStats {
  readonly memory: NodeJS.MemoryUsage;
  readonly cpu: NodeJS.CpuUsage;
  readonly counters: Readonly<Record<string, number>>;
  /** The monotonic clock in µs (`process.hrtime`), the clock of a `--cpu-prof` profile's timestamps. */
  readonly monotonicUs: number;
  /** Garbage collections since the server started (every kind): how many, their pauses' sum and longest, ms. */
  readonly gc: { readonly count: number; readonly ms: number; readonly maxMs: number };
}

/** A request from the harness, and the answer the server sends back with the same `id`. */
export interface ControlRequest {
  readonly id: number;
  readonly type: 'stats' | 'gc' | 'exit';
}

/** The port the harness chose, from `PORT` (or the first argument). */
export function benchPort(): number {
  const raw = process.env.PORT ?? process.argv[2];
  const port = Number(raw);
  if (!Number.isInteger(port) || port <= 0) {
    throw new Error(`bench server: PORT must be a port number, got ${String(raw)}`);
  }
  return port;
}

/**
 * Answers the harness over IPC: `stats` (memoryUsage, cpuUsage and the server's counters), `gc`
 * (forced collections, the process runs with --expose-gc) and `exit` (a clean exit, so that
 * --cpu-prof writes its profile).
 */
export function serveControl(counters: () => Record<string, number> = () => ({})): void {
  if (!process.send) return;
  // Counted per collection, never per request: what the latency figures' tails are made of.
  const gc = { count: 0, ms: 0, maxMs: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.count += 1;
      gc.ms += entry.duration;
      gc.maxMs = Math.max(gc.maxMs, entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('message', (message: ControlRequest) => {
    if (message.type === 'exit') process.exit(0);
    if (message.type === 'gc') {
      const gc = (globalThis as { gc?: () => void }).gc;
      // Several passes: the first one can leave weakly held and finalisable objects for the next.
      for (let pass = 0; pass < 4; pass += 1) gc?.();
    }
    const stats: ServerStats = {
      memory: process.memoryUsage(),
      cpu: process.cpuUsage(),
      counters: counters(),
      monotonicUs: Number(process.hrtime.bigint() / 1000n),
      gc: { ...gc },
    };
    process.send?.({ id: message.id, ...stats });
  });
}

const HEALTHY = JSON.stringify({ status: 'healthy' });

/** `/health`, `/health/live` and `/health/ready` of the reference servers: constant 200s. */
export function cannedHealth(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'GET' || !req.url?.startsWith('/health')) return false;
  if (req.url !== '/health' && req.url !== '/health/live' && req.url !== '/health/ready') return false;
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(HEALTHY);
  return true;
}
