// The load generator, run as its own process (never inside a server): autocannon with a fixed number
// of connections for a fixed time. Every request carries a fresh JSON-RPC id; sessionful servers get
// one 2025-era session per connection, opened before the clock starts, used round-robin.
import autocannon from 'autocannon';
import { type Era, echoRequest, openSession } from './requests.js';

export interface LoadJob {
  readonly base: string;
  /** `GET <path>` when `era` is absent; else tools/call echo POSTed to `path`. */
  readonly path: string;
  readonly era?: Era;
  /** Open one session per connection first (2025-era sessionful servers). */
  readonly sessions?: boolean;
  readonly connections: number;
  readonly seconds: number;
}

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
}

/** A job and the id its answer carries back. */
export type LoadRequest = LoadJob & { readonly id: number };
export type LoadAnswer =
  | ({ readonly ok: true } & LoadResult)
  | { readonly ok: false; readonly error: string };

// One loader process serves every measurement of a run (jobs over IPC, one at a time), so that no
// measurement pays for starting node and autocannon. It exits with its parent.
process.on('disconnect', () => process.exit(0));
process.on('message', (request: LoadRequest) => {
  runJob(request).then(
    (result) => process.send?.({ id: request.id, ok: true, ...result }),
    (error: unknown) => process.send?.({ id: request.id, ok: false, error: String(error) }),
  );
});

async function runJob(job: LoadJob): Promise<LoadResult> {
  const { era } = job;
  const sessionIds: string[] = [];
  if (era !== undefined && job.sessions) {
    // Concurrently: some servers take a second to set a session up (fastmcp polls for capabilities).
    const opening = Array.from({ length: job.connections }, () => openSession(job.base + job.path));
    sessionIds.push(...(await Promise.all(opening)));
  }
  let nextId = 1;
  const result = await autocannon({
    url: job.base,
    connections: job.connections,
    duration: job.seconds,
    timeout: 10,
    requests: [
      era === undefined
        ? { method: 'GET', path: job.path }
        : {
            method: 'POST',
            path: job.path,
            setupRequest: (request) => {
              const id = nextId++;
              const { headers, body } = echoRequest(era, id, sessionIds[id % sessionIds.length]);
              return { ...request, headers, body };
            },
          },
    ],
  });
  return {
    requests: result.requests.total,
    seconds: result.duration,
    rps: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
