// The shape of one run's results (results.json): what run.ts measures and report.ts, charts.ts and
// targets.ts read.
import type { Footprint } from './harness/footprint.js';
import type { MemorySample, StampedeSample, ThroughputSample, Verification } from './harness/measure.js';

/** Everything one run measured; RESULTS.md is rendered from it. */
export interface BenchResults {
  readonly meta: {
    readonly command: string;
    readonly date: string;
    readonly node: string;
    readonly cpus: number;
    readonly cpuModel: string;
    readonly loadAverageBefore: readonly number[];
    readonly loadAverageAfter: readonly number[];
    readonly smoke: boolean;
    readonly runs: number;
    readonly seconds: number;
    readonly warmupSeconds: number;
    readonly connections: number;
    readonly sessions: number;
    readonly probes: number;
    readonly versions: Readonly<Record<string, string>>;
    readonly durationSeconds: number;
  };
  readonly servers: readonly { readonly id: string; readonly label: string; readonly skipped?: string }[];
  readonly unavailablePeers: readonly { readonly name: string; readonly reason: string }[];
  readonly verifications: readonly Verification[];
  /** Keyed `server era` (tools/call echo), `server era tool` (another tool) or `server GET path`. */
  readonly throughput: Readonly<Record<string, ThroughputSample[]>>;
  /**
   * Instructions per request in the server's main thread, counted under callgrind once per run (keyed as
   * `throughput`), or why not; absent in results of runs before they were counted.
   */
  readonly instructions?: Readonly<Record<string, number>> | { readonly skipped: string };
  readonly coldStart: Readonly<Record<string, { liveMs: number[]; readyMs: number[] }>>;
  readonly memory: Readonly<Record<string, MemorySample[]>>;
  readonly stampede: readonly StampedeSample[];
  readonly footprint: { readonly pier: Footprint; readonly config: Footprint } | { readonly skipped: string };
}
