// Signals, handled by the app rather than by core: core exits the process as soon as the server has
// closed, and the notes store must be flushed between the two.
import type { Logger, PierServer } from '@pier/core';
import type { NotesStore } from './notes-store.js';

/** Exit code after a second signal cut the drain short, or after a close or flush that failed. */
export const FORCED_EXIT_CODE = 1;

/**
 * On SIGTERM: drain (readiness fails at once, MCP is still served for the drain delay given to `listen`,
 * requests in flight finish), flush the notes store, exit 0. SIGINT does the same without the drain
 * delay. A second signal exits at once with {@link FORCED_EXIT_CODE}, as does a failed close.
 * When the server closes by itself (stdio: the client closed stdin) the store is flushed too, and the
 * process ends on its own once nothing is left to do.
 */
export function closeOnSignals(
  server: PierServer,
  store: Pick<NotesStore, 'flush'>,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  const logger: Logger = server.logger;
  let closing = false;

  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) {
      logger.warn(`second ${signal}: exiting without waiting for the drain`, { exitCode: FORCED_EXIT_CODE });
      exit(FORCED_EXIT_CODE);
      return;
    }
    closing = true;
    logger.info(`${signal} received: closing`);
    server
      .close(signal === 'SIGINT' ? { drainDelayMs: 0 } : {})
      .then(() => store.flush())
      .then(
        () => {
          logger.info('notes flushed; exiting');
          exit(0);
        },
        (error: unknown) => {
          logger.error('shutdown failed', { error: error instanceof Error ? error.message : String(error) });
          exit(FORCED_EXIT_CODE);
        },
      );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  server.onStateChange((state) => {
    if (state !== 'closed' || closing) return;
    void store.flush().then(() => logger.info('notes flushed'));
  });
}
