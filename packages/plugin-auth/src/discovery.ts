// Authorization server metadata (RFC 8414, then OpenID Connect discovery), fetched once per issuer.
import { TokenRejectedError } from './errors.js';

export interface ServerMetadata {
  readonly issuer: string;
  readonly jwks_uri?: string;
  readonly introspection_endpoint?: string;
}

/** The metadata URLs to try for `issuer`, in the order the MCP spec's clients use. */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * Fetches `issuer`'s metadata; the document's `issuer` must be exactly `issuer` (RFC 8414 §3.3), or the
 * keys it points to could be anyone's. A failure is `unavailable` (503), remembered for `retryMs` so that
 * an outage costs the authorization server one request per interval, not one per client request.
 */
export function metadataFetcher(issuer: string, timeoutMs: number, retryMs = 2_000) {
  let pending: Promise<ServerMetadata> | undefined;
  let failedAt = 0;
  const load = async (): Promise<ServerMetadata> => {
    let lastError: unknown;
    for (const url of metadataUrls(issuer)) {
      try {
        // Never followed: a redirect answer is not ok, and so refused below. Not `redirect: 'error'`, which
        // Cloudflare Workers' fetch does not implement.
        const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
        if (!res.ok) {
          await res.body?.cancel();
          lastError = new Error(`${url} answered ${res.status}`);
          continue;
        }
        const metadata = (await res.json()) as ServerMetadata;
        if (metadata?.issuer !== issuer) {
          throw new TokenRejectedError('unavailable', `the metadata at ${url} names another issuer`);
        }
        return metadata;
      } catch (error) {
        if (error instanceof TokenRejectedError) throw error;
        lastError = error;
      }
    }
    throw new TokenRejectedError('unavailable', `metadata of ${issuer} could not be fetched`, {
      cause: lastError,
    });
  };
  return (): Promise<ServerMetadata> => {
    if (pending === undefined || (failedAt !== 0 && Date.now() - failedAt >= retryMs)) {
      failedAt = 0;
      pending = load();
      pending.catch(() => {
        failedAt = Date.now();
      });
    }
    return pending;
  };
}
