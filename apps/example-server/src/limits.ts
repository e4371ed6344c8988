// Fair use: ADD_NOTE_LIMIT caps add_note calls per principal per minute, counted in this process, or in
// Redis for the whole fleet with REDIS_URL. Unset, the app has no limits (and no limits plugin).
import type { LimitStore } from '@pier/core';
import { type LimitsPlugin, limitsPlugin } from '@pier/plugin-limits';

/** The name the limit has in refusals, `RateLimit` headers and the `pier.limit.*` metrics. */
export const ADD_NOTE_RULE = 'add-note';

/** The limits plugin for `ADD_NOTE_LIMIT` (`undefined`: no limit), counting in `store` when given. */
export function notesLimits(
  addNoteLimit: number | undefined,
  store: LimitStore | undefined,
): LimitsPlugin | undefined {
  if (addNoteLimit === undefined) return undefined;
  return limitsPlugin({
    ...(store !== undefined && { store }),
    rules: [
      {
        name: ADD_NOTE_RULE,
        key: 'principal',
        tools: 'add_note',
        rate: { limit: addNoteLimit, windowMs: 60_000 },
      },
    ],
  });
}
