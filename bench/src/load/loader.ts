// The load generator, run as its own process (never inside a server): autocannon with a fixed number
// of connections for a fixed time. Every request carries a fresh JSON-RPC id; sessionful servers get
// one 2025-era session per connection, opened before the clock starts, used round-robin.
import autocannon from 'autocannon';
import {
  askingCall,
  askingRetry,
  type CallShape,
  ECHO_TEXT,
  type Era,
  echoRequest,
  inputRequired,
  type McpRequest,
  openSession,
} from './requests.js';

export interface LoadJob {
  readonly base: string;
  /** `GET <path>` when `era` is absent; else tools/call echo POSTed to `path`. */
  readonly path: string;
  readonly era?: Era;
  /** The tools/call sent (echo when absent). */
  readonly call?: CallShape;
  /** Open one session per connection first (2025-era sessionful servers). */
  readonly sessions?: boolean;
  readonly connections: number;
  readonly seconds: number;
  /** Extra headers on every POST (an `Authorization` for a protected server). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  /** Connection errors, plus (input-required) exchanges whose answer was not what the round expects. */
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
    const options = { headers: job.headers, logLevel: job.call?.logLevel };
    const opening = Array.from({ length: job.connections }, () => openSession(job.base + job.path, options));
    sessionIds.push(...(await Promise.all(opening)));
  }
  let nextId = 1;
  const post = (build: (id: number) => McpRequest) => (request: autocannon.Request) => {
    const { headers, body } = build(nextId++);
    return {
      ...request,
      headers: job.headers === undefined ? headers : { ...headers, ...job.headers },
      body,
    };
  };
  const wrong = { answers: 0 };
  const result = await autocannon({
    url: job.base,
    connections: job.connections,
    duration: job.seconds,
    timeout: 10,
    requests:
      era === undefined
        ? [{ method: 'GET', path: job.path }]
        : era === 'input-required'
          ? inputRequiredExchange(job.path, post, wrong)
          : [
              {
                method: 'POST',
                path: job.path,
                setupRequest: post((id) =>
                  echoRequest(era, id, sessionIds[id % sessionIds.length], job.call),
                ),
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
    errors: result.errors + wrong.answers,
    timeouts: result.timeouts,
  };
}

/**
 * The two rounds of a 2026-07-28 input-required exchange, on every connection in turn: round one is
 * answered `input_required`; its `requestState` and question key (kept in the connection's context)
 * make round two, answered with the echo. A round whose answer is not what it should be counts as an
 * error; a round two without a state restarts the exchange.
 */
const ECHOED = JSON.stringify({ type: 'text', text: ECHO_TEXT });

function inputRequiredExchange(
  path: string,
  post: (build: (id: number) => McpRequest) => (request: autocannon.Request) => autocannon.Request,
  wrong: { answers: number },
): autocannon.Request[] {
  type Round = { key?: string | undefined; requestState?: string | undefined };
  return [
    {
      method: 'POST',
      path,
      setupRequest: post(askingCall),
      onResponse: (status, body, context: Round) => {
        const next = status === 200 ? inputRequired(JSON.parse(body)) : undefined;
        if (next === undefined) wrong.answers += 1;
        context.key = next?.key;
        context.requestState = next?.requestState;
      },
    },
    {
      method: 'POST',
      path,
      setupRequest: (request, context: Round) => {
        const { key, requestState } = context;
        if (key === undefined || requestState === undefined) return undefined as never;
        return post((id) => askingRetry(id, key, requestState))(request);
      },
      onResponse: (status, body) => {
        if (status !== 200 || !body.includes('"resultType":"complete"') || !body.includes(ECHOED)) {
          wrong.answers += 1;
        }
      },
    },
  ];
}
