// Option checks the provider factories share.
import { describeValue, type OptionIssues } from '@pier/core';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether `value` is an https URL, or http on a loopback address (development and tests). */
export function isSecureUrl(value: unknown): value is string {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.username !== '' || url.password !== '' || url.hash !== '') return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
}

/** `clientId`, and `clientSecret` (required or optional), never quoting the secret. */
export function checkClient(
  issues: OptionIssues,
  options: { readonly clientId?: unknown; readonly clientSecret?: unknown } | undefined,
  secretRequired: boolean,
): void {
  if (options === null || typeof options !== 'object') {
    issues.add('expects an options object { clientId, clientSecret }');
    return;
  }
  if (typeof options.clientId !== 'string' || options.clientId.trim() === '') {
    issues.add(`clientId must be a non-empty string (got ${describeValue(options.clientId)})`);
  }
  const secret = options.clientSecret;
  if (secret === undefined ? secretRequired : typeof secret !== 'string' || secret === '') {
    issues.add(
      `clientSecret must be a non-empty string (got ${secret === undefined ? 'nothing' : `a ${typeof secret}`})`,
    );
  }
}

/** An endpoint URL: https (http on loopback only). */
export function checkEndpoint(issues: OptionIssues, name: string, value: unknown): string {
  if (!isSecureUrl(value)) {
    issues.add(
      `${name} must be an https URL (http for 127.0.0.1, localhost or [::1] only) (got ${describeValue(value)})`,
    );
  }
  return value as string;
}

/** A list of scope names (no spaces), or `undefined` when not given. */
export function checkScopes(issues: OptionIssues, name: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    !value.every((s) => typeof s === 'string' && /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s))
  ) {
    issues.add(`${name} must be an array of scope names without spaces (got ${describeValue(value)})`);
    return undefined;
  }
  return [...new Set(value as string[])];
}
