// One pair of process signal listeners shared by every listening server of the process, so that
// two servers (say stdio and HTTP) drain together and the process exits once, after both closed.
import { messageOf } from '../errors.js';
import type { Logger } from '../logger.js';

/** A signal Pier handles. */
export type ShutdownSignal = 'SIGTERM' | 'SIGINT';

/** A server that closes on a signal. */
export interface SignalTarget {
  readonly logger: Logger;
  /** Resolves `false` when the server closed but its close hooks failed or timed out. */
  closeOnSignal(signal: ShutdownSignal): Promise<boolean>;
}

/** Exit code after a second signal cut the drain short, or after a close (or close hook) that failed. */
export const FORCED_EXIT_CODE = 1;

const targets = new Set<SignalTarget>();
let shuttingDown = false;

const onSigterm = () => shutDown('SIGTERM');
const onSigint = () => shutDown('SIGINT');

/**
 * Closes `target` on SIGTERM (graceful drain) or SIGINT (no drain delay), then exits the process
 * with code 0 once every watched server closed cleanly (close hooks included), else 1. A second
 * signal exits at once with code 1.
 * Returns the function that stops watching; the listeners go away with the last target.
 */
export function watchSignals(target: SignalTarget): () => void {
  targets.add(target);
  if (targets.size === 1 && !shuttingDown && signalsAvailable()) {
    process.on('SIGTERM', onSigterm);
    process.on('SIGINT', onSigint);
  }
  return () => {
    // While shutting down the listeners stay until exit, so that a second signal can still force it.
    if (targets.delete(target) && targets.size === 0 && !shuttingDown) removeListeners();
  };
}

function shutDown(signal: ShutdownSignal): void {
  const watched = [...targets];
  const logger = watched[0]?.logger;
  if (shuttingDown) {
    logger?.warn(`second ${signal}: exiting without waiting for the drain`, { exitCode: FORCED_EXIT_CODE });
    process.exit(FORCED_EXIT_CODE);
  }
  shuttingDown = true;
  logger?.info(`${signal} received: closing`, { servers: watched.length });
  void Promise.allSettled(watched.map((target) => target.closeOnSignal(signal))).then((results) => {
    let failed = false;
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') {
        failed ||= !result.value; // the hooks logged their own failures
        return;
      }
      failed = true;
      watched[i]?.logger.error('close failed', { error: messageOf(result.reason) });
    });
    removeListeners();
    process.exit(failed ? FORCED_EXIT_CODE : 0);
  });
}

function removeListeners(): void {
  if (!signalsAvailable()) return;
  process.off('SIGTERM', onSigterm);
  process.off('SIGINT', onSigint);
}

/**
 * Whether this runtime delivers process signals: Node, Bun and Deno do; Workers (even with `nodejs_compat`,
 * whose `process` has no signals to give) and browsers do not, and there the platform ends the isolate.
 */
function signalsAvailable(): boolean {
  const proc = (globalThis as { process?: { on?: unknown; off?: unknown } }).process;
  return typeof proc?.on === 'function' && typeof proc.off === 'function' && !onWorkers();
}

function onWorkers(): boolean {
  return (
    (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent === 'Cloudflare-Workers'
  );
}
