// The two health checks: the data directory (critical: without it no note can be saved) and the
// upstream API (not critical: the notes keep working without it, so an outage only degrades).
import type { HealthCheckDefinition, HealthCheckResult } from '@pier/plugin-health';
import type { FileNotesStore } from './notes-store.js';

/** What the checks need. */
export interface HealthCheckDeps {
  readonly store: Pick<FileNotesStore, 'probeWritable' | 'dataDir'>;
  /** `BASE_URL`. */
  readonly baseUrl: string;
  /** `TIMEOUT`: how long the upstream has to answer. */
  readonly timeoutMs: number;
  /** Where a failed probe's detail goes (the server's log): `/health` only says what failed. */
  readonly logFailure?: (message: string, fields: Record<string, unknown>) => void;
}

/** Extra time the plugin allows beyond the fetch's own timeout, so the fetch's clearer message wins. */
export const PLUGIN_TIMEOUT_MARGIN_MS = 1_000;

/**
 * The checks for `healthPlugin`:
 * - `data-dir` (critical): writes and removes a probe file in the data directory; a failure is reported
 *   by its error code only (the path stays in the log).
 * - `upstream` (non-critical): `GET BASE_URL` must get an HTTP answer within `TIMEOUT`. Any status
 *   below 500 is healthy — a 401 or 404 from an API's base URL still proves it is up, and the check
 *   sends no credentials; a 5xx is `degraded` (it answers but says it is failing); no answer (refused,
 *   DNS failure, timeout) is `unhealthy`, which a non-critical check turns into `degraded` overall.
 */
export function healthChecks({
  store,
  baseUrl,
  timeoutMs,
  logFailure,
}: HealthCheckDeps): HealthCheckDefinition[] {
  // A base URL may carry credentials (https://user:pass@host/): fetch refuses such a URL, and its error
  // would quote it in /health. The check needs no authentication, so it calls the URL without them and
  // names the upstream by its origin only.
  const target = new URL(baseUrl);
  target.username = '';
  target.password = '';
  const upstream = target.origin;
  return [
    {
      name: 'data-dir',
      critical: true,
      check: async (): Promise<HealthCheckResult> => {
        try {
          await store.probeWritable();
        } catch (error) {
          // The filesystem's message names the directory's absolute path: /health is open to anyone, so it
          // says only what failed and the error code; the log keeps the whole message.
          logFailure?.('data directory probe failed', {
            error: error instanceof Error ? error.message : String(error),
          });
          const code = (error as NodeJS.ErrnoException | undefined)?.code;
          throw new Error(
            `the data directory is not writable${typeof code === 'string' ? ` (${code})` : ''}`,
          );
        }
        return { status: 'healthy' };
      },
    },
    {
      name: 'upstream',
      critical: false,
      timeoutMs: timeoutMs + PLUGIN_TIMEOUT_MARGIN_MS,
      check: async ({ signal }): Promise<HealthCheckResult> => {
        const timeout = AbortSignal.timeout(timeoutMs);
        let response: Response;
        try {
          response = await fetch(target, {
            signal: AbortSignal.any([signal, timeout]),
            redirect: 'manual',
            headers: { accept: '*/*' },
          });
        } catch (error) {
          if (timeout.aborted) throw new Error(`${upstream} did not answer within ${timeoutMs} ms`);
          throw new Error(`${upstream} did not answer: ${reasonOf(error)}`);
        }
        // Only the status matters: do not download the body.
        await response.body?.cancel().catch(() => undefined);
        if (response.status >= 500) {
          return { status: 'degraded', message: `${upstream} answered HTTP ${response.status}` };
        }
        return { status: 'healthy', details: { httpStatus: response.status } };
      },
    },
  ];
}

/** fetch's own message is only "fetch failed"; the useful part (ECONNREFUSED, ENOTFOUND…) is in `cause`. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
