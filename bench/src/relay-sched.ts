// `pnpm relay-sched [requests]`: what the CPUs were doing while the slowest cross-replica events waited.
// Runs `pnpm relay` under `perf sched record` (Linux, root, `perf` from Debian's linux-perf) with
// RELAY_EVENTS, then lines each warm-pass event up with the scheduler's trace: for every event, how long
// each process's main thread, its helper threads (V8's compiler and collector), kernel threads and idle
// CPUs held the two cores between the raise on B and the bench client hearing it. The slowest events are
// compared with typical ones, which tells a tail made by Pier's own work apart from one made by the
// machine (PROFILE.md, "the notification tail on two cores").
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { needBinary } from './harness/children.js';

const RELAY = fileURLToPath(new URL('./relay.js', import.meta.url));
const requests = process.argv[2] ?? '300';
/** Events whose categories are averaged: the slowest, and the middle of the pass for comparison. */
const SLOWEST = 20;

interface Segment {
  readonly from: number;
  readonly to: number;
  readonly who: string;
}

/** Per-CPU run segments from `perf script`'s sched_switch lines, each named by its task's category. */
function segmentsOf(script: string, roles: Record<string, string>): Segment[] {
  const line =
    /^\s*(.+?)\s+(\d+)\/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+sched:sched_switch:.* next_comm=(.+?) next_pid=(\d+)/;
  const pidOf = new Map<string, string>();
  const commOf = new Map<string, string>();
  const switches: { cpu: string; at: number; next: string }[] = [];
  for (const text of script.split('\n')) {
    const m = line.exec(text);
    if (!m) continue;
    const [, comm, pid, tid, cpu, at, nextComm, next] = m as unknown as string[];
    pidOf.set(tid as string, pid as string);
    commOf.set(tid as string, comm as string);
    commOf.set(next as string, nextComm as string);
    switches.push({ cpu: cpu as string, at: Number(at) * 1000, next: next as string });
  }
  const categoryOf = (tid: string) => {
    if (tid === '0') return 'idle';
    const pid = pidOf.get(tid);
    const role = pid === undefined ? undefined : roles[pid];
    if (role !== undefined) return pid === tid ? role : `${role} (helper threads)`;
    const comm = commOf.get(tid) ?? '';
    return /^(kworker|ksoftirqd|rcu|migration|kdamond|kcompactd|kswapd)/.test(comm)
      ? `kernel (${comm.replace(/[/:].*$/, '')})`
      : 'other processes';
  };
  const segments: Segment[] = [];
  const running = new Map<string, { at: number; tid: string }>();
  for (const { cpu, at, next } of switches) {
    const current = running.get(cpu);
    if (current !== undefined) segments.push({ from: current.at, to: at, who: categoryOf(current.tid) });
    running.set(cpu, { at, tid: next });
  }
  return segments.sort((a, b) => a.from - b.from);
}

function main(): void {
  if (process.platform !== 'linux') throw new Error('relay-sched reads the Linux scheduler; run it on Linux');
  needBinary('pnpm relay-sched', 'perf', 'apt-get install -y linux-perf (and run as root)');
  const dir = mkdtempSync(join(tmpdir(), 'relay-sched-'));
  try {
    const data = join(dir, 'sched.data');
    const events = join(dir, 'events.json');
    const run = spawnSync(
      'perf',
      ['sched', 'record', '-k', 'mono', '-o', data, '--', process.execPath, RELAY, requests],
      { env: { ...process.env, RELAY_EVENTS: events }, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    if (run.status !== 0) throw new Error(`perf sched record ended with ${run.status ?? run.signal}`);
    const { monoOffsetMs, pids } = JSON.parse(readFileSync(`${events}.pids.json`, 'utf8')) as {
      monoOffsetMs: number;
      pids: Record<string, string>;
    };
    const script = execFileSync('perf', ['script', '-i', data, '-F', 'comm,pid,tid,cpu,time,event,trace'], {
      maxBuffer: 1 << 30,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString();
    const segments = segmentsOf(script, pids);
    const warm = (
      JSON.parse(readFileSync(events, 'utf8')) as { at: number; pass: string; sdk: number }[]
    ).filter((event) => event.pass === 'warm');
    // CPU time each category held in [raise, heard], summed over both cores (a window of w ms holds 2w).
    const held = warm.map((event) => {
      const from = event.at - monoOffsetMs;
      const to = from + event.sdk;
      const byWho = new Map<string, number>();
      for (const segment of segments) {
        if (segment.to <= from) continue;
        if (segment.from >= to) break;
        const ms = Math.min(segment.to, to) - Math.max(segment.from, from);
        byWho.set(segment.who, (byWho.get(segment.who) ?? 0) + ms);
      }
      return { latency: event.sdk, byWho };
    });
    held.sort((a, b) => b.latency - a.latency);
    const middle = Math.floor(held.length / 2);
    const groups = {
      slowest: held.slice(0, SLOWEST),
      typical: held.slice(middle - 100, middle + 100),
    };
    const mean = (rows: typeof held, who: string) =>
      rows.reduce((sum, row) => sum + (row.byWho.get(who) ?? 0), 0) / rows.length;
    const categories = [...new Set(held.flatMap((row) => [...row.byWho.keys()]))].sort(
      (a, b) => mean(groups.slowest, b) - mean(groups.slowest, a),
    );
    const latency = (rows: typeof held) => rows.reduce((sum, row) => sum + row.latency, 0) / rows.length;
    const lines = [
      '',
      `Warm pass, ${held.length} events: CPU time held between the raise on B and the bench client hearing it (ms, both cores summed), mean over the ${SLOWEST} slowest events and over the 200 around the median.`,
      '',
      `| held by | ${SLOWEST} slowest (mean latency ${latency(groups.slowest).toFixed(2)} ms) | typical (mean latency ${latency(groups.typical).toFixed(2)} ms) |`,
      '| --- | --- | --- |',
      ...categories.map(
        (who) =>
          `| ${who} | ${mean(groups.slowest, who).toFixed(2)} | ${mean(groups.typical, who).toFixed(2)} |`,
      ),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
