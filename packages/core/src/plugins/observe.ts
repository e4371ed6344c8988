// Request observers (PluginContext.observe): every request and notification the engine serves, how each
// request ended, the requests it sends the client, the connections and the long-lived streams — so that
// tracing and metrics cover every method and both eras. A server without observers pays nothing.

import { messageOf } from '../errors.js';
import type { Logger } from '../logger.js';
import type {
  McpObserver,
  ObservedOutcome,
  ObservedRequest,
  ObservedStream,
  ObservedTaskStatus,
} from './api.js';

/** An observer's callback for how a request ended. */
export type Finish = (outcome: ObservedOutcome) => void;

/**
 * What a transport calls when a long-lived stream opens (`TransportHost.reportStream`), or `undefined`
 * when no observer wants streams.
 */
export function streamReporter(
  observers: readonly McpObserver[],
  logger: Logger,
): ((stream: ObservedStream) => () => void) | undefined {
  const watching = observers.filter((observer) => observer.onStream !== undefined);
  if (watching.length === 0) return undefined;
  return (stream) => {
    const ends: (() => void)[] = [];
    for (const observer of watching) {
      safely(logger, () => {
        const end = observer.onStream?.(stream);
        if (typeof end === 'function') ends.push(end);
      });
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      for (const end of ends) safely(logger, end);
    };
  };
}

/** What tasks call on each status change, or `undefined` when no observer wants them. */
export function taskStatusReporter(
  observers: readonly McpObserver[],
  logger: Logger,
): ((change: ObservedTaskStatus) => void) | undefined {
  const watching = observers.filter((observer) => observer.onTaskStatus !== undefined);
  if (watching.length === 0) return undefined;
  return (change) => {
    for (const observer of watching) safely(logger, () => observer.onTaskStatus?.(change));
  };
}

/**
 * Tells every observer that `request` arrived and runs `deliver` inside their dispatches: each observer
 * wraps the next one's, so a tracer's context surrounds the handler. `deliver` runs exactly once, even
 * when an observer throws or never calls its dispatch. The observers' outcome callbacks are pushed onto
 * `finishes` (pass them to {@link finishRequest} once the answer is known).
 */
export function observeRequest(
  observers: readonly McpObserver[],
  request: ObservedRequest,
  deliver: () => void,
  logger: Logger,
  finishes: Finish[],
): void {
  let dispatch = deliver;
  for (let index = observers.length - 1; index >= 0; index -= 1) {
    const observer = observers[index] as McpObserver;
    const next = dispatch;
    dispatch = () => {
      let dispatched = false;
      const once = () => {
        if (dispatched) return;
        dispatched = true;
        next();
      };
      try {
        const finish = observer.onRequest?.(request, once);
        if (typeof finish === 'function') finishes.push(finish);
      } catch (error) {
        logger.warn('a request observer failed', { error: messageOf(error) });
      }
      once();
    };
  }
  dispatch();
}

/** Tells each observer how a request ended; one that throws breaks nothing. */
export function finishRequest(finishes: readonly Finish[], outcome: ObservedOutcome, logger: Logger): void {
  // Called for every observed request: no closure per callback.
  for (const finish of finishes) {
    try {
      finish(outcome);
    } catch (error) {
      logger.warn('a request observer failed', { error: messageOf(error) });
    }
  }
}

function safely(logger: Logger, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    logger.warn('a request observer failed', { error: messageOf(error) });
  }
}
