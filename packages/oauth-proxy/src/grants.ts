// A grant: one user's login, through one MCP client, with the scopes they consented to and the provider's
// tokens. Access tokens (JWTs) name their grant (`sid`); refresh tokens are opaque and rotate; revoking the
// grant ends all of them at once, on every replica.
import type { Logger } from '@pier/core';
import { randomToken, sha256 } from './crypto.js';
import { OAuthProxyError } from './errors.js';
import type { SigningKeys } from './keys.js';
import type { ProxyStore } from './store.js';
import {
  refreshTokens,
  revokeUpstream,
  type UpstreamContext,
  type UpstreamProvider,
  type UpstreamTokens,
  type UpstreamUser,
} from './upstream/provider.js';
import { UpstreamToken } from './upstream-token.js';

export interface Grant {
  readonly id: string;
  readonly clientId: string;
  /** The user, as the provider names them: the `sub` of every access token of the grant. */
  readonly subject: string;
  readonly user: UpstreamUser;
  /** What the user consented to (a refresh may narrow a token's scopes, never widen them). */
  readonly scopes: readonly string[];
  readonly upstream: UpstreamTokens;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  /** When the grant is forgotten unless refreshed before (milliseconds since the epoch). */
  readonly expiresAt: number;
}

/** A refresh token's record (named by the token's SHA-256). */
interface RefreshRecord {
  readonly grantId: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
}

/** What the token endpoint answers (RFC 6749 §5.1). */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly scope: string;
  readonly refresh_token?: string;
}

export interface GrantSettings {
  readonly store: ProxyStore;
  readonly keys: SigningKeys;
  readonly issuer: string;
  readonly resource: string;
  readonly accessTokenTtlMs: number;
  readonly refreshTokenTtlMs: number;
  readonly upstream: UpstreamProvider;
  readonly context: UpstreamContext;
  readonly logger: () => Logger | undefined;
}

/** How long the answer of a refresh is kept for the same client's concurrent duplicates (sealed, short). */
const CONCURRENT_ANSWER_MS = 10_000;
/** How long a concurrent duplicate waits for the winner's answer. */
const CONCURRENT_WAIT_MS = 3_000;
/** A rotated token presented this soon after its rotation counts as a concurrent duplicate, not a reuse. */
const CONCURRENT_WINDOW_MS = 2_000;

/** A rotated refresh token: its login, and when it was rotated (milliseconds since the epoch). */
interface UsedRefresh {
  readonly grantId: string;
  readonly at: number;
}

/** A rotation's answer, for the refreshes that were in flight with it. */
interface SharedAnswer {
  readonly clientId: string;
  readonly answer: TokenResponse;
}

/** The provider's token is refreshed this long before it expires (a quarter of a shorter life, at least 2 s). */
const UPSTREAM_MARGIN_MS = 60_000;

export class Grants {
  readonly #settings: GrantSettings;
  /** Upstream refreshes in flight, by grant: concurrent tool calls share one. */
  readonly #refreshing = new Map<string, Promise<Grant>>();

  constructor(settings: GrantSettings) {
    this.#settings = settings;
  }

  async create(login: Pick<Grant, 'clientId' | 'subject' | 'user' | 'scopes' | 'upstream'>): Promise<Grant> {
    const now = Date.now();
    const grant: Grant = {
      ...login,
      id: randomToken(18),
      createdAt: now,
      expiresAt: now + this.#settings.refreshTokenTtlMs,
    };
    await this.#settings.store.put('grant', grant.id, grant, this.#settings.refreshTokenTtlMs);
    return grant;
  }

  read(grantId: string): Promise<Grant | undefined> {
    return this.#settings.store.read<Grant>('grant', grantId);
  }

  /** Whether the grant still stands (not revoked, not expired): checked on every MCP request. */
  alive(grantId: string): Promise<boolean> {
    return this.#settings.store.has('grant', grantId);
  }

  /** A new access token, and a refresh token when the client may refresh, for `scopes` of the grant. */
  async issue(grant: Grant, scopes: readonly string[], refresh: boolean): Promise<TokenResponse> {
    const { accessTokenTtlMs, refreshTokenTtlMs, issuer, resource } = this.#settings;
    const now = Math.floor(Date.now() / 1000);
    const expiresIn = Math.floor(accessTokenTtlMs / 1000);
    const accessToken = await this.#settings.keys.sign({
      iss: issuer,
      sub: grant.subject,
      aud: resource,
      client_id: grant.clientId,
      scope: scopes.join(' '),
      iat: now,
      exp: now + expiresIn,
      jti: randomToken(16),
      sid: grant.id,
    });
    let refreshToken: string | undefined;
    if (refresh) {
      refreshToken = randomToken(32);
      const record: RefreshRecord = { grantId: grant.id, clientId: grant.clientId, scopes };
      await this.#settings.store.put('refresh', await sha256(refreshToken), record, refreshTokenTtlMs);
    }
    this.#settings.logger()?.info('tokens issued', {
      client: grant.clientId,
      refresh: refreshToken !== undefined,
    });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: expiresIn,
      scope: scopes.join(' '),
      ...(refreshToken !== undefined && { refresh_token: refreshToken }),
    };
  }

  /**
   * The refresh grant: rotates the refresh token (the old one becomes a reuse tripwire that revokes the whole
   * grant), refreshes the provider's token first when it expired, and extends the grant.
   */
  async refresh(
    refreshToken: string,
    clientId: string,
    requestedScopes: readonly string[] | undefined,
  ): Promise<
    TokenResponse | { readonly error: string; readonly description: string; readonly status: number }
  > {
    const { store } = this.#settings;
    const name = await sha256(refreshToken);
    const record = await store.read<RefreshRecord>('refresh', name);
    if (record === undefined) {
      const reused = await store.read<UsedRefresh>('refresh-used', name);
      if (reused !== undefined) {
        // Rotated a moment ago: the same client's concurrent refresh gets the rotation's answer.
        if (Date.now() - reused.at <= CONCURRENT_WINDOW_MS) {
          const answer = await this.#concurrentAnswer(name, clientId);
          if (answer !== undefined) return answer;
        }
        await this.revoke(reused.grantId, 'refresh token reused');
        return {
          status: 400,
          error: 'invalid_grant',
          description: 'The refresh token was already used; the login is revoked',
        };
      }
      return {
        status: 400,
        error: 'invalid_grant',
        description: 'The refresh token is unknown, expired or revoked',
      };
    }
    if (record.clientId !== clientId) {
      // Another client holding this client's refresh token: it was stolen. End the login.
      await this.revoke(record.grantId, 'refresh token presented by another client');
      return {
        status: 400,
        error: 'invalid_grant',
        description: 'The refresh token was not issued to this client',
      };
    }
    const scopes = requestedScopes ?? record.scopes;
    if (!scopes.every((scope) => record.scopes.includes(scope))) {
      return {
        status: 400,
        error: 'invalid_scope',
        description: 'A refresh cannot add scopes the user did not grant',
      };
    }
    let grant = await this.read(record.grantId);
    if (grant === undefined) {
      return { status: 400, error: 'invalid_grant', description: 'The login was revoked or expired' };
    }
    try {
      grant = await this.#freshUpstream(grant);
    } catch (error) {
      if (endedUpstream(error)) {
        await this.revoke(grant.id, `${this.#settings.upstream.name} ended the login`);
        return {
          status: 400,
          error: 'invalid_grant',
          description: `The login at ${this.#settings.upstream.name} ended; log in again`,
        };
      }
      this.#settings.logger()?.warn('the provider could not refresh a login', {
        provider: this.#settings.upstream.name,
        error: error instanceof Error ? error.message : 'unknown',
      });
      return {
        status: 503,
        error: 'temporarily_unavailable',
        description: `${this.#settings.upstream.name} cannot be reached; try again`,
      };
    }
    // Rotation: of two uses at once, one wins (the first to mark the token used). The others — the same
    // client's concurrent refreshes, when several requests met a 401 together — get the winner's answer if
    // they come within a moment of it; a later use of the rotated token revokes the login.
    const used: UsedRefresh = { grantId: grant.id, at: Date.now() };
    if (!(await store.add('refresh-used', name, used, this.#settings.refreshTokenTtlMs))) {
      const answer = await this.#concurrentAnswer(name, clientId);
      if (answer !== undefined) return answer;
      await this.revoke(grant.id, 'refresh token reused');
      return {
        status: 400,
        error: 'invalid_grant',
        description: 'The refresh token was already used; the login is revoked',
      };
    }
    await store.remove('refresh', name);
    const extended: Grant = { ...grant, expiresAt: Date.now() + this.#settings.refreshTokenTtlMs };
    await store.put('grant', grant.id, extended, this.#settings.refreshTokenTtlMs);
    const answer = await this.issue(extended, scopes, true);
    const shared: SharedAnswer = { clientId, answer };
    await store.put('refresh-answer', name, shared, CONCURRENT_ANSWER_MS);
    return answer;
  }

  /** The answer the winning concurrent refresh gave, once it is written (bounded wait); `undefined` if none. */
  async #concurrentAnswer(name: string, clientId: string): Promise<TokenResponse | undefined> {
    for (let waited = 0; waited <= CONCURRENT_WAIT_MS; waited += 50) {
      const shared = await this.#settings.store.read<SharedAnswer>('refresh-answer', name);
      if (shared !== undefined) return shared.clientId === clientId ? shared.answer : undefined;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return undefined;
  }

  /** Ends a login: its access and refresh tokens stop working everywhere; the provider's token is revoked too. */
  async revoke(grantId: string, reason: string): Promise<void> {
    const grant = await this.read(grantId);
    await this.#settings.store.remove('grant', grantId);
    this.#settings
      .logger()
      ?.info('login revoked', { reason, ...(grant !== undefined && { client: grant.clientId }) });
    if (grant === undefined) return;
    const { upstream, context } = this.#settings;
    // Best effort: a provider without a revocation endpoint (GitHub) keeps its token until it expires.
    const endpoints = await upstream.endpoints(context).catch(() => undefined);
    if (endpoints === undefined) return;
    const { refreshToken, accessToken } = grant.upstream;
    await revokeUpstream(
      upstream,
      endpoints,
      context,
      refreshToken ?? accessToken,
      refreshToken === undefined ? 'access_token' : 'refresh_token',
    );
  }

  /** The provider's token for a grant, refreshed first when it expired: what `upstreamToken(ctx.auth)` gives. */
  async upstreamToken(grantId: string): Promise<UpstreamToken> {
    const grant = await this.read(grantId);
    if (grant === undefined) {
      throw new OAuthProxyError(
        'UPSTREAM_TOKEN_UNAVAILABLE',
        'upstreamToken(): the login was revoked or expired',
      );
    }
    let fresh: Grant;
    try {
      fresh = await this.#freshUpstream(grant);
    } catch (error) {
      if (endedUpstream(error)) {
        throw new OAuthProxyError(
          'UPSTREAM_TOKEN_EXPIRED',
          `upstreamToken(): ${this.#settings.upstream.name}'s token expired and could not be refreshed; the user must log in again`,
        );
      }
      throw error;
    }
    const tokens = fresh.upstream;
    return new UpstreamToken(tokens.accessToken, {
      provider: this.#settings.upstream.name,
      scopes: tokens.scopes,
      tokenType: tokens.tokenType,
      ...(tokens.expiresAt !== undefined && { expiresAt: Math.floor(tokens.expiresAt / 1000) }),
    });
  }

  /** The grant with a provider token that is not about to expire (refreshed, once for concurrent callers). */
  #freshUpstream(grant: Grant): Promise<Grant> {
    const expiresAt = grant.upstream.expiresAt;
    // At least 2 s: providers count expiry in whole seconds, so a token may end up to a second early.
    const margin = Math.min(
      UPSTREAM_MARGIN_MS,
      Math.max(2_000, ((expiresAt ?? 0) - grant.upstream.obtainedAt) / 4),
    );
    if (expiresAt === undefined || expiresAt - Date.now() > margin) return Promise.resolve(grant);
    let pending = this.#refreshing.get(grant.id);
    if (pending === undefined) {
      pending = this.#refreshUpstream(grant).finally(() => this.#refreshing.delete(grant.id));
      this.#refreshing.set(grant.id, pending);
    }
    return pending;
  }

  async #refreshUpstream(grant: Grant): Promise<Grant> {
    const { upstream, context, store } = this.#settings;
    if (grant.upstream.refreshToken === undefined) {
      // Nothing to refresh with: usable until it expires, then the login is over.
      if ((grant.upstream.expiresAt as number) > Date.now()) return grant;
      throw new OAuthProxyError('UPSTREAM_TOKEN_EXPIRED', `${upstream.name}'s token expired`, {
        upstreamError: 'invalid_grant',
      });
    }
    const endpoints = await upstream.endpoints(context);
    const tokens = await refreshTokens(upstream, endpoints, context, grant.upstream);
    const refreshed: Grant = { ...grant, upstream: tokens };
    const ttl = grant.expiresAt - Date.now();
    if (ttl > 0) await store.put('grant', grant.id, refreshed, ttl);
    this.#settings.logger()?.debug('provider token refreshed', { provider: upstream.name });
    return refreshed;
  }
}

/** Whether the provider said the login is over (its refresh token refused), as opposed to being unreachable. */
function endedUpstream(error: unknown): boolean {
  return (
    error instanceof OAuthProxyError &&
    (error.code === 'UPSTREAM_TOKEN_EXPIRED' ||
      error.upstreamError === 'invalid_grant' ||
      error.upstreamError === 'unauthorized_client' ||
      error.upstreamError === 'invalid_client')
  );
}
