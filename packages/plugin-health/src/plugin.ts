// healthPlugin(): wires validated options, the evaluator and the lifecycle into three HTTP routes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger, PierPlugin, PluginContext } from '@pier/core';
import { httpStatusOf } from './aggregate.js';
import { type HealthPluginOptions, type HealthStatus, normalizeOptions } from './definitions.js';
import { describeFailure, type Evaluation, HealthEvaluator } from './evaluate.js';
import {
  healthBody,
  LIVE_BODY,
  type NotServingReason,
  notServingHealthBody,
  notServingReadyBody,
  readyBody,
  sendJson,
  sendMethodNotAllowed,
} from './respond.js';

/** A Pier plugin serving health endpoints, with a switch for readiness that the application controls. */
export interface HealthPlugin extends PierPlugin {
  /**
   * Declares the application ready now, whether or not `readyWhen` has settled (for instance after
   * recovering from a rejected `readyWhen`). Readiness still needs the server to be listening.
   */
  markReady(): void;
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
  const { checks, paths, cacheTtlMs, exposeDetails, readyWhen } = normalizeOptions(options);

  let appReady = readyWhen === undefined;
  let readyWhenFailure: string | undefined;
  const loggers = new Set<Logger>();
  if (readyWhen !== undefined) {
    // Settled handlers are attached now, so a rejection is never unhandled even before setup.
    Promise.resolve(readyWhen).then(
      () => {
        appReady = true;
      },
      (reason: unknown) => {
        readyWhenFailure = describeFailure(reason);
        for (const logger of loggers) logReadyWhenFailure(logger, readyWhenFailure);
      },
    );
  }

  return {
    name: 'health',
    markReady() {
      appReady = true;
    },
    setup(ctx: PluginContext) {
      const logger = ctx.logger;
      loggers.add(logger);
      if (readyWhenFailure !== undefined && !appReady) logReadyWhenFailure(logger, readyWhenFailure);

      const evaluator = new HealthEvaluator(checks, { cacheTtlMs, onEvaluation: statusLogger(logger) });
      // Probes waiting for a run; answered at once when draining begins, so shutdown never waits on a check.
      const waiting = new Set<() => void>();
      const unsubscribe = ctx.onStateChange((state) => {
        if (state !== 'draining' && state !== 'closed') return;
        for (const answerNow of [...waiting]) answerNow();
        if (state !== 'closed') return;
        evaluator.close();
        loggers.delete(logger);
        unsubscribe();
      });
      /** The current evaluation, or `undefined` if the server starts shutting down first. */
      const evaluationOrShutdown = () =>
        new Promise<Evaluation | undefined>((resolve) => {
          const answerNow = () => {
            waiting.delete(answerNow);
            resolve(undefined);
          };
          waiting.add(answerNow);
          void evaluator.evaluate().then((evaluation) => {
            waiting.delete(answerNow);
            resolve(evaluation);
          });
        });

      /** Read at every request: the lifecycle moves while the server runs. */
      const notServing = (): NotServingReason | undefined => {
        const state = ctx.state;
        if (state === 'draining' || state === 'closed') return 'shutting_down';
        return state === 'ready' && appReady ? undefined : 'starting';
      };

      const evaluated =
        (
          bodyOf: (evaluation: Evaluation) => { readonly status: HealthStatus },
          notServingBodyOf: (reason: NotServingReason) => unknown,
        ) =>
        async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
          if (req.method !== 'GET' && req.method !== 'HEAD') return sendMethodNotAllowed(req, res);
          const before = notServing();
          if (before !== undefined) return sendJson(req, res, 503, notServingBodyOf(before));
          const evaluation = await evaluationOrShutdown();
          // Draining may have begun while the checks ran: readiness fails at once, not after them.
          const after = notServing();
          if (evaluation === undefined || after !== undefined) {
            return sendJson(req, res, 503, notServingBodyOf(after ?? 'shutting_down'));
          }
          const body = bodyOf(evaluation);
          sendJson(req, res, httpStatusOf(body.status), body);
        };

      ctx.addRoute({
        method: 'GET',
        path: paths.health,
        handler: evaluated(
          (evaluation) => healthBody(evaluation, ctx.server, exposeDetails),
          (reason) => notServingHealthBody(reason, ctx.server, exposeDetails),
        ),
      });
      ctx.addRoute({ method: 'GET', path: paths.ready, handler: evaluated(readyBody, notServingReadyBody) });
      ctx.addRoute({
        method: 'GET',
        path: paths.live,
        handler: (req, res) => {
          if (req.method !== 'GET' && req.method !== 'HEAD') return sendMethodNotAllowed(req, res);
          sendJson(req, res, 200, LIVE_BODY);
        },
      });
    },
  };
}

/** Logs when the aggregated status changes (not on every probe), so an outage shows up once in the logs. */
function statusLogger(logger: Logger): (evaluation: Evaluation) => void {
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
