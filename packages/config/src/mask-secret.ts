/** What a short secret, or a secret that is not text, looks like when printed. */
export const FIXED_MASK = '********';

/** Secrets this long or longer keep a short prefix when masked. */
const PREFIX_FROM_LENGTH = 16;
const PREFIX_LENGTH = 4;

/**
 * Masks a secret for logs and reports. A value of 16 characters or more keeps its first 4
 * characters (enough to tell keys apart: `sk-l********`); a shorter value becomes a fixed mask, so
 * that neither a prefix nor the number of asterisks gives its length away.
 *
 * @example
 * maskSecret('sk-live-0123456789abcdef'); // 'sk-l********'
 * maskSecret('hunter2');                  // '********'
 */
export function maskSecret(value: string): string {
  if (typeof value !== 'string' || value.length < PREFIX_FROM_LENGTH) return FIXED_MASK;
  return Array.from(value).slice(0, PREFIX_LENGTH).join('') + FIXED_MASK;
}
