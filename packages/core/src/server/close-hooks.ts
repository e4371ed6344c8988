// Close hooks: asynchronous cleanup that runs once the transport stopped serving, before `closed`.
import { describeValue, messageOf, PierError } from '../errors.js';
import type { Logger } from '../logger.js';

/**
 * Cleanup run once by `close()` (and on SIGTERM/SIGINT), after the transport stopped serving and
 * before the lifecycle turns `closed`: flush a store, close a pool. See `PierServer.onClose`.
 */
export type CloseHook = () => void | Promise<void>;

/** How long all close hooks of a server may take together, unless `closeHookTimeoutMs` says otherwise. */
export const DEFAULT_CLOSE_HOOK_TIMEOUT_MS = 10_000;

interface Entry {
  readonly hook: CloseHook;
  /** The server's logger, or the plugin's (scoped to it) for a plugin's hook. */
  readonly logger: Logger;
}

/** The close hooks of one server. Internal to core. */
export class CloseHooks {
  readonly #entries = new Set<Entry>();
  #started = false;

  constructor(private readonly serverName: string) {}

  /**
   * Adds a hook; returns the function that removes it. Throws once the hooks started running:
   * nothing would run a hook added then.
   */
  add(hook: unknown, logger: Logger, where: string): () => void {
    if (typeof hook !== 'function') {
      throw new PierError(
        'OPTIONS_INVALID',
        `${where}: the hook must be a function (got ${describeValue(hook)})`,
      );
    }
    if (this.#started) {
      throw new PierError(
        'SERVER_CLOSED',
        `${where}: server "${this.serverName}" has already run its close hooks; clean up yourself`,
      );
    }
    const entry: Entry = { hook: hook as CloseHook, logger };
    this.#entries.add(entry);
    return () => {
      this.#entries.delete(entry);
    };
  }

  /**
   * Runs every hook once, one after the other, the last added first. A hook that throws is logged
   * and the next one runs. Past `timeoutMs` in all, the hook still running is left behind (logged)
   * and the ones after it are skipped. Resolves `true` when every hook finished without error in time.
   */
  async run(timeoutMs: number): Promise<boolean> {
    this.#started = true;
    const entries = [...this.#entries].reverse();
    this.#entries.clear();
    if (entries.length === 0) return true;

    let failed = false;
    let timedOut = false;
    let running = 0;
    const all = (async () => {
      for (; running < entries.length && !timedOut; running++) {
        const { hook, logger } = entries[running] as Entry;
        try {
          await hook();
        } catch (error) {
          failed = true;
          logger.error('close hook failed', { error: messageOf(error), ...named(hook) });
        }
      }
    })();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        timedOut = true;
        resolve();
      }, timeoutMs);
    });
    await Promise.race([all, deadline]);
    clearTimeout(timer);
    if (!timedOut || running >= entries.length) return !failed;

    const { hook, logger } = entries[running] as Entry;
    logger.warn('close hook still running after the timeout: closing without waiting for it', {
      timeoutMs,
      ...named(hook),
      skipped: entries.length - running - 1 || undefined,
    });
    return false;
  }
}

function named(hook: CloseHook): { hook?: string } {
  return hook.name ? { hook: hook.name } : {};
}
