// healthPlugin(): wires validated options, the evaluator and the lifecycle into three HTTP routes.
import type { HttpRequestHead, Logger, PierPlugin, PlainHttpAnswer, PluginContext } from '@pier/core';
import { httpStatusOf } from './aggregate.js';
import { type HealthPluginOptions, type HealthStatus, normalizeOptions } from './definitions.js';
import { describeFailure, type HealthEvaluation, HealthEvaluator } from './evaluate.js';
import {
  answerOf,
  healthBody,
  LIVE_ANSWER,
  METHOD_NOT_ALLOWED,
  type NotServingReason,
  notServingHealthBody,
  notServingReadyBody,
  payloadOf,
  readyBody,
  webHandlerOf,
} from './respond.js';

/** A Pier plugin serving health endpoints, with a switch for readiness that the application controls. */
export interface HealthPlugin extends PierPlugin {
  /**
   * Declares the application ready now, whether or not `readyWhen` has settled (for instance after
   * recovering from a rejected `readyWhen`). Readiness still needs the server to be listening.
   */
  markReady(): void;
  /**
   * Calls `listener` with every finished run of the checks (one per probe that was not answered from the
   * cache), on every server the plugin serves: what a metrics plugin (`otelPlugin({ health })`) reports.
   * A listener that throws is logged and ignored. Returns the function that removes it.
   */
  onEvaluation(listener: (evaluation: HealthEvaluation) => void): () => void;
}

/**
 * Kubernetes-ready `/health`, `/health/live` and `/health/ready` for a Pier server listening over HTTP.
 * Validates everything now, so a bad definition fails at startup rather than on the first probe.
 *
 * @example
 * ```ts
 * healthPlugin({
 *   checks: [{ name: 'db', critical: true, check: async ({ signal }) => (await ping(signal), { status: 'healthy' }) }],
 * });
 * ```
 * @throws {HealthPluginError} `HEALTH_OPTIONS_INVALID` when an option or a check definition is invalid.
 */
export function healthPlugin(options: HealthPluginOptions): HealthPlugin {
  const normalized = normalizeOptions(options);
  const readiness = new AppReadiness(normalized.readyWhen);
  const listeners = new Set<(evaluation: HealthEvaluation) => void>();
  return {
    name: 'health',
    markReady() {
      readiness.markReady();
    },
    onEvaluation(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setup(ctx: PluginContext) {
      new HealthEndpoints(ctx, normalized, readiness, listeners).register();
    },
  };
}

/**
 * Whether the application said it is ready: at once without `readyWhen`, when `readyWhen` resolves, or
 * when `markReady()` is called. A rejected `readyWhen` is logged by every server the plugin serves.
 */
class AppReadiness {
  ready: boolean;
  #failure: string | undefined;
  readonly #loggers = new Set<Logger>();

  constructor(readyWhen: PromiseLike<unknown> | undefined) {
    this.ready = readyWhen === undefined;
    if (readyWhen === undefined) return;
    // Settled handlers are attached now, so a rejection is never unhandled even before setup.
    Promise.resolve(readyWhen).then(
      () => {
        this.ready = true;
      },
      (reason: unknown) => {
        this.#failure = describeFailure(reason);
        for (const logger of this.#loggers) logReadyWhenFailure(logger, this.#failure);
      },
    );
  }

  markReady(): void {
    this.ready = true;
  }

  /** Logs a past `readyWhen` failure now, and future ones, on `logger` until the returned function is called. */
  watch(logger: Logger): () => void {
    this.#loggers.add(logger);
    if (this.#failure !== undefined && !this.ready) logReadyWhenFailure(logger, this.#failure);
    return () => this.#loggers.delete(logger);
  }
}

/** The three routes of one server: the evaluator, the lifecycle and the probes waiting on a run. */
class HealthEndpoints {
  readonly #ctx: PluginContext;
  readonly #options: NormalizedHealthOptions;
  readonly #readiness: AppReadiness;
  readonly #evaluator: HealthEvaluator;
  /** Probes waiting for a run; answered at once when draining begins, so shutdown never waits on a check. */
  readonly #waiting = new Set<() => void>();

  constructor(
    ctx: PluginContext,
    options: NormalizedHealthOptions,
    readiness: AppReadiness,
    listeners: ReadonlySet<(evaluation: HealthEvaluation) => void>,
  ) {
    this.#ctx = ctx;
    this.#options = options;
    this.#readiness = readiness;
    const logStatus = statusLogger(ctx.logger);
    this.#evaluator = new HealthEvaluator(options.checks, {
      cacheTtlMs: options.cacheTtlMs,
      onEvaluation: (evaluation) => {
        logStatus(evaluation);
        for (const listener of listeners) {
          try {
            listener(evaluation);
          } catch (error) {
            ctx.logger.warn('a health evaluation listener failed', { error: describeFailure(error) });
          }
        }
      },
    });
  }

  register(): void {
    const ctx = this.#ctx;
    const { paths, exposeDetails } = this.#options;
    const unwatch = this.#readiness.watch(ctx.logger);
    const unsubscribe = ctx.onStateChange((state) => {
      if (state !== 'draining' && state !== 'closed') return;
      for (const answerNow of [...this.#waiting]) answerNow();
      if (state !== 'closed') return;
      this.#evaluator.close();
      unwatch();
      unsubscribe();
    });
    // `/health` with details carries the process's uptime at answer time, so it is built per request;
    // the other bodies depend on the evaluation only and are serialised once per evaluation.
    const healthAnswer = (evaluation: HealthEvaluation): PlainHttpAnswer =>
      answerFor(healthBody(evaluation, ctx.server, exposeDetails));
    // Each route answers plainly (node transports write that without web objects) and, for web runtimes,
    // as a `Response` made from the same answer.
    const addRoute = (path: string, plain: PlainRoute): void =>
      ctx.addRoute({ method: 'GET', path, plain, handler: webHandlerOf(plain) });
    addRoute(
      paths.health,
      this.#evaluated(exposeDetails ? healthAnswer : perEvaluation(healthAnswer), (reason) =>
        notServingHealthBody(reason, ctx.server, exposeDetails),
      ),
    );
    addRoute(
      paths.ready,
      this.#evaluated(
        perEvaluation((evaluation) => answerFor(readyBody(evaluation))),
        notServingReadyBody,
      ),
    );
    addRoute(paths.live, live);
  }

  /** Read at every request: the lifecycle moves while the server runs. */
  #notServing(): NotServingReason | undefined {
    const state = this.#ctx.state;
    if (state === 'draining' || state === 'closed') return 'shutting_down';
    return state === 'ready' && this.#readiness.ready ? undefined : 'starting';
  }

  /** The current evaluation, or `undefined` if the server starts shutting down first. */
  #evaluationOrShutdown(): Promise<HealthEvaluation | undefined> {
    return new Promise((resolve) => {
      const answerNow = () => {
        this.#waiting.delete(answerNow);
        resolve(undefined);
      };
      this.#waiting.add(answerNow);
      void this.#evaluator.evaluate().then((evaluation) => {
        this.#waiting.delete(answerNow);
        resolve(evaluation);
      });
    });
  }

  /** A route answering from an evaluation: at once from a fresh cached one, else after a run. */
  #evaluated(
    answerTo: (evaluation: HealthEvaluation) => PlainHttpAnswer,
    notServingBodyOf: (reason: NotServingReason) => unknown,
  ): PlainRoute {
    /** Waits for a run (or the shutdown), then re-reads the lifecycle before answering. */
    const afterRun = async (): Promise<PlainHttpAnswer> => {
      const evaluation = await this.#evaluationOrShutdown();
      // Draining may have begun while the checks ran: readiness fails at once, not after them.
      const after = this.#notServing();
      if (evaluation === undefined || after !== undefined) {
        return jsonAnswer(503, notServingBodyOf(after ?? 'shutting_down'));
      }
      return answerTo(evaluation);
    };
    return (head) => {
      if (head.method !== 'GET' && head.method !== 'HEAD') return METHOD_NOT_ALLOWED;
      const before = this.#notServing();
      if (before !== undefined) return jsonAnswer(503, notServingBodyOf(before));
      // A fresh cached evaluation is answered now: no promise, no waiter (nothing can change meanwhile).
      const fresh = this.#evaluator.fresh();
      if (fresh !== undefined) return answerTo(fresh);
      return afterRun();
    };
  }
}

/** A health route as node transports call it. */
type PlainRoute = (head: HttpRequestHead) => PlainHttpAnswer | Promise<PlainHttpAnswer>;

/** `/health/live`: runs no check, answers while the process and its event loop are alive. */
function live(head: HttpRequestHead): PlainHttpAnswer {
  return head.method !== 'GET' && head.method !== 'HEAD' ? METHOD_NOT_ALLOWED : LIVE_ANSWER;
}

function jsonAnswer(status: number, body: unknown): PlainHttpAnswer {
  return answerOf(status, payloadOf(body));
}

type NormalizedHealthOptions = ReturnType<typeof normalizeOptions>;

/** A serialised body with the HTTP status its `status` maps to. */
function answerFor(body: { readonly status: HealthStatus }): PlainHttpAnswer {
  return jsonAnswer(httpStatusOf(body.status), body);
}

/** Remembers the answer to the last evaluation seen: a cached evaluation is served many times. */
function perEvaluation(
  answerTo: (evaluation: HealthEvaluation) => PlainHttpAnswer,
): (evaluation: HealthEvaluation) => PlainHttpAnswer {
  let last: HealthEvaluation | undefined;
  let answer: PlainHttpAnswer | undefined;
  return (evaluation) => {
    if (evaluation !== last || answer === undefined) {
      answer = answerTo(evaluation);
      last = evaluation;
    }
    return answer;
  };
}

/** Logs when the aggregated status changes (not on every probe), so an outage shows up once in the logs. */
function statusLogger(logger: Logger): (evaluation: HealthEvaluation) => void {
  let previous: HealthStatus | undefined;
  return (evaluation) => {
    const status = evaluation.status;
    if (status === previous) return;
    const first = previous === undefined;
    previous = status;
    if (first && status === 'healthy') return;
    const failing = evaluation.checks
      .filter((check) => check.status !== 'healthy')
      .map((check) => check.name);
    if (status === 'healthy') logger.info('health is healthy again');
    else logger.warn(`health is ${status}`, { failing });
  };
}

function logReadyWhenFailure(logger: Logger, failure: string): void {
  try {
    logger.error(`readyWhen rejected (${failure}); readiness stays "starting" until markReady() is called`);
  } catch {
    // A logger that throws must not turn into an unhandled rejection.
  }
}
