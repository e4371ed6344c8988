// authPlugin(): protected resource metadata routes, and the authenticator of the MCP endpoint.
import type {
  AuthInfo,
  HttpAuthenticator,
  HttpAuthOutcome,
  HttpRequestHead,
  Logger,
  PierPlugin,
} from '@pier/core';
import { describeValue, OptionIssues } from '@pier/core';
import { AuthInfos, authDetails } from './auth-info.js';
import { bearerChallenge, everydayToken, presented, refusal } from './challenge.js';
import { optionsError, type RejectionReason, TokenRejectedError } from './errors.js';
import { jwt } from './jwt.js';
import { checkImplies, checkScopes, ScopePolicy } from './scopes.js';
import { canonicalUrl, issuerProblem, metadataUrlOf, resourceProblem } from './urls.js';
import type { ActiveVerifier, TokenVerifier } from './verifier.js';
import { hideUnusable, LIST_METHODS } from './visibility.js';

/** Options of {@link authPlugin}. */
export interface AuthPluginOptions {
  /**
   * The canonical URL of this server's MCP endpoint, such as `https://api.example.com/mcp`: the metadata's
   * `resource`, the audience every token must carry, and where `resource_metadata` points. Never derived
   * from the request's `Host`. https (http for loopback only), no query, fragment or trailing slash.
   */
  readonly resource: string;
  /** Issuer URLs of the authorization servers whose tokens are accepted (at least one). */
  readonly authorizationServers: readonly string[];
  /** How tokens are checked. Default `jwt()`. */
  readonly verifier?: TokenVerifier;
  /** Scopes every request to the MCP endpoint needs (403 `insufficient_scope` otherwise). Default none. */
  readonly requiredScopes?: readonly string[];
  /** `scopes_supported` of the metadata: keep it minimal; never `offline_access`. Default: `requiredScopes`, if any. */
  readonly scopesSupported?: readonly string[];
  /** The `scope` hint of a bare 401. Default: `requiredScopes`, else `scopesSupported`. */
  readonly challengeScopes?: readonly string[];
  /** A scope hierarchy: `{ 'notes:admin': ['notes:write', 'notes:read'] }` (transitive). */
  readonly implies?: Readonly<Record<string, readonly string[]>>;
  /** Also serve the metadata at `/.well-known/oauth-protected-resource` (the 2025-11-25 fallback). Default `true`. */
  readonly rootMetadata?: boolean;
  /** `resource_name` of the metadata. */
  readonly resourceName?: string;
  /** `resource_documentation` of the metadata (a URL). */
  readonly resourceDocumentation?: string;
  /** `max-age` of the metadata answers, in seconds. Default 3600. */
  readonly metadataMaxAgeSeconds?: number;
  /** Longer tokens are refused unread (401). Default 8192 characters. */
  readonly maxTokenLength?: number;
  /**
   * What `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list` show. `'all'`
   * (default): everything, and a call lacking scopes gets the 403 a client steps up from. `'hide'`: only
   * what the caller's scopes allow (hierarchy included); such lists are marked `cacheScope: "private"`
   * on 2026-07-28. Hiding is not access control: calls are checked either way.
   */
  readonly visibility?: 'all' | 'hide';
}

/** A health check in `@pier/plugin-health`'s shape (structural: no dependency on that package). */
export interface AuthKeysCheck {
  readonly name: string;
  readonly critical: false;
  readonly check: (context: { readonly signal: AbortSignal }) => Promise<{ status: 'healthy' }>;
}

/** What {@link authPlugin} returns: the plugin, plus a readiness check and the URLs it serves. */
export interface AuthPlugin extends PierPlugin {
  /**
   * Where the metadata is served (the path-aware URL of RFC 9728). Under a mount (Express's
   * `app.use('/api', …)`, a handler's `basePath`), the routes are served below the application's prefix,
   * and the challenges' `resource_metadata` names that URL instead: `https://h/api/.well-known/…`.
   */
  readonly metadataUrl: string;
  /**
   * A non-critical check for `healthPlugin({ checks })`: the key set or introspection endpoint answers.
   * Non-critical on purpose: an authorization server outage degrades readiness but never restarts pods.
   */
  readonly keysCheck: AuthKeysCheck;
}

/**
 * Turns a Pier server into an OAuth 2.1 resource server: serves its protected resource metadata
 * (RFC 9728), refuses requests to the MCP endpoint without a valid token (RFC 6750 challenges), hands
 * the caller to handlers as `ctx.auth`, binds 2025 sessions and 2026 request states to the caller, and
 * enforces the `scopes` of tools, resources and prompts with the hierarchy in `implies`.
 */
export function authPlugin(options: AuthPluginOptions): AuthPlugin {
  const settings = validate(options);
  const { resource, metadataUrl, policy } = settings;
  let logger: Logger | undefined;
  const verifier: ActiveVerifier = settings.verifier.create({
    resource,
    authorizationServers: settings.authorizationServers,
    logger: () => logger,
  });
  // Under a mount, plugin routes are served below the application's prefix: the challenges and `ctx.auth`
  // name the metadata where it is served (`https://h/api/.well-known/…`), not where nothing answers.
  const resourceUrl = new URL(resource);
  const metadataPath = new URL(metadataUrl).pathname;
  const atRoot: Served = { metadataUrl, authInfos: new AuthInfos(resourceUrl, metadataUrl) };
  const mounts = new Map<string, Served>();
  const servedUnder = (basePath: string | undefined): Served => {
    if (basePath === undefined || basePath === '') return atRoot;
    let served = mounts.get(basePath);
    if (served === undefined) {
      const url = `${resourceUrl.origin}${basePath}${metadataPath}`;
      served = { metadataUrl: url, authInfos: new AuthInfos(resourceUrl, url) };
      // A framework's pattern mount (`/:tenant`) may name many prefixes: only a few are remembered.
      if (mounts.size < MAX_MOUNTS_REMEMBERED) mounts.set(basePath, served);
    }
    return served;
  };
  const hint = (settings.challengeScopes ?? settings.requiredScopes ?? settings.scopesSupported ?? []).join(
    ' ',
  );

  const challenge401 = (served: Served, error?: string, description?: string) =>
    bearerChallenge({
      ...(error !== undefined && { error }),
      ...(description !== undefined && { error_description: description }),
      resource_metadata: served.metadataUrl,
      scope: hint,
    });
  const refuse = (
    reason: RejectionReason | 'request' | 'scope',
    outcome: HttpAuthOutcome,
  ): HttpAuthOutcome => {
    if ('refusal' in outcome) logger?.info('request refused', { reason, status: outcome.refusal.status });
    return outcome;
  };

  /** The endpoint-wide scope check, on a verified caller: `undefined` when it passes. */
  const scopeRefusal = (authInfo: AuthInfo, served: Served): HttpAuthOutcome | undefined => {
    const required = settings.requiredScopes;
    if (required === undefined || policy.missing(required, authInfo.scopes).length === 0) return undefined;
    const scopes = policy.challengeScopes(required, authInfo.scopes);
    const description = `This server requires the scopes ${required.join(' ')}`;
    const header = bearerChallenge({
      error: 'insufficient_scope',
      error_description: description,
      scope: scopes.join(' '),
      resource_metadata: served.metadataUrl,
    });
    return refuse('scope', { refusal: refusal(403, 'insufficient_scope', description, header) });
  };

  /** Verifies the credentials the request presented (the path a cache hit does not take). */
  const verify = async (
    credentials: ReturnType<typeof presented>,
    served: Served,
  ): Promise<HttpAuthOutcome> => {
    switch (credentials.kind) {
      case 'none':
        // RFC 6750 §3.1: no credentials, no error code; only where to log in and what to ask for.
        return refuse('request', {
          refusal: refusal(401, undefined, undefined, challenge401(served)),
        });
      case 'bad-request': {
        const header = bearerChallenge({
          error: 'invalid_request',
          error_description: credentials.description,
          resource_metadata: served.metadataUrl,
        });
        return refuse('request', {
          refusal: refusal(400, 'invalid_request', credentials.description, header),
        });
      }
      case 'unusable':
        return refuse('malformed', {
          refusal: refusal(
            401,
            'invalid_token',
            credentials.description,
            challenge401(served, 'invalid_token', credentials.description),
          ),
        });
    }
    let authInfo: AuthInfo;
    try {
      const verified = await verifier.verify(credentials.token);
      authInfo = served.authInfos.of(credentials.token, verified);
    } catch (error) {
      if (!(error instanceof TokenRejectedError)) {
        logger?.error('the token verifier failed', {
          error: error instanceof Error ? error.message : String(error),
        });
        return {
          refusal: refusal(500, 'server_error', 'The access token could not be verified', undefined),
        };
      }
      if (error.reason === 'unavailable') {
        // Not the token's fault: a 401 would send the client through a new login, in a loop.
        logger?.warn('token not verified: the authorization server is unreachable', {
          reason: error.reason,
          error: error.message,
        });
        return {
          refusal: refusal(
            503,
            'temporarily_unavailable',
            'The access token cannot be verified right now',
            undefined,
            {
              'retry-after': '5',
            },
          ),
        };
      }
      return refuse(error.reason, {
        refusal: refusal(
          401,
          'invalid_token',
          error.message,
          challenge401(served, 'invalid_token', error.message),
        ),
      });
    }
    return scopeRefusal(authInfo, served) ?? { authInfo };
  };

  const authenticator: HttpAuthenticator = {
    authenticate(request: HttpRequestHead): HttpAuthOutcome | Promise<HttpAuthOutcome> {
      // A token verified a moment ago, its key set unchanged: answered without waiting on anything, and
      // without checking its syntax again (it passed when it was verified).
      const served = servedUnder(request.basePath);
      const everyday = verifier.cached && everydayToken(request, settings.maxTokenLength);
      const known = everyday ? verifier.cached?.(everyday) : undefined;
      if (known !== undefined) {
        const authInfo = served.authInfos.of(everyday as string, known);
        return scopeRefusal(authInfo, served) ?? { authInfo };
      }
      const credentials = presented(request, settings.maxTokenLength);
      if (credentials.kind === 'token' && credentials.token !== everyday) {
        const cached = verifier.cached?.(credentials.token);
        if (cached !== undefined) {
          const authInfo = served.authInfos.of(credentials.token, cached);
          return scopeRefusal(authInfo, served) ?? { authInfo };
        }
      }
      return verify(credentials, served);
    },
    principalOf(authInfo) {
      return authDetails(authInfo)?.principal ?? authInfo.clientId;
    },
    scopeChallenge(required, authInfo) {
      const missing = policy.missing(required, authInfo.scopes);
      if (missing.length === 0) return undefined;
      logger?.info('request refused', { reason: 'scope', status: 403 });
      return {
        scopes: policy.challengeScopes(required, authInfo.scopes),
        errorDescription: `This operation requires the scopes ${required.join(' ')}`,
      };
    },
  };

  const document = JSON.stringify({
    resource,
    authorization_servers: settings.authorizationServers,
    ...(settings.scopesSupported !== undefined && { scopes_supported: settings.scopesSupported }),
    bearer_methods_supported: ['header'],
    ...(options.resourceName !== undefined && { resource_name: options.resourceName }),
    ...(options.resourceDocumentation !== undefined && {
      resource_documentation: options.resourceDocumentation,
    }),
  });
  const metadataHeaders = {
    'content-type': 'application/json',
    'cache-control': `public, max-age=${settings.metadataMaxAgeSeconds}`,
    'access-control-allow-origin': '*',
  };
  const serveMetadata = (request: Request) =>
    new Response(request.method === 'HEAD' ? null : document, { headers: metadataHeaders });
  const preflight = () =>
    new Response(null, {
      status: 204,
      headers: {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, HEAD, OPTIONS',
        'access-control-max-age': '86400',
      },
    });
  const paths = [metadataPath];
  if (settings.rootMetadata && !paths.includes('/.well-known/oauth-protected-resource')) {
    paths.push('/.well-known/oauth-protected-resource');
  }

  return {
    name: 'auth',
    metadataUrl,
    keysCheck: {
      name: 'auth-keys',
      critical: false,
      async check({ signal }) {
        await verifier.probe?.(signal);
        return { status: 'healthy' };
      },
    },
    setup(ctx) {
      logger = ctx.logger;
      for (const path of paths) {
        ctx.addRoute({ method: 'GET', path, handler: serveMetadata });
        ctx.addRoute({ method: 'OPTIONS', path, handler: preflight });
      }
      ctx.setAuthenticator(authenticator);
      if (settings.visibility === 'hide')
        ctx.use(
          LIST_METHODS,
          hideUnusable(authenticator as Required<Pick<HttpAuthenticator, 'scopeChallenge'>>),
        );
    },
  };
}

/** Where the metadata is served for requests under one mount, and the `ctx.auth` objects that name it. */
interface Served {
  readonly metadataUrl: string;
  readonly authInfos: AuthInfos;
}

/** How many mount prefixes keep their own {@link Served} (the rest build one per request). */
const MAX_MOUNTS_REMEMBERED = 8;

interface Settings {
  readonly resource: string;
  readonly metadataUrl: string;
  readonly authorizationServers: readonly string[];
  readonly verifier: TokenVerifier;
  readonly requiredScopes: readonly string[] | undefined;
  readonly scopesSupported: readonly string[] | undefined;
  readonly challengeScopes: readonly string[] | undefined;
  readonly policy: ScopePolicy;
  readonly rootMetadata: boolean;
  readonly metadataMaxAgeSeconds: number;
  readonly maxTokenLength: number;
  readonly visibility: 'all' | 'hide';
}

function validate(options: AuthPluginOptions): Settings {
  const issues = new OptionIssues('authPlugin()');
  if (typeof options !== 'object' || options === null) {
    issues.add('expects an options object { resource, authorizationServers }');
    issues.throwIfAny(optionsError);
  }
  const resourceIssue = resourceProblem(options.resource);
  if (resourceIssue !== undefined)
    issues.add(`resource ${resourceIssue} (got ${describeValue(options.resource)})`);
  const servers = options.authorizationServers;
  if (!Array.isArray(servers) || servers.length === 0) {
    issues.add(
      `authorizationServers must be a non-empty array of issuer URLs (got ${describeValue(servers)})`,
    );
  } else {
    servers.forEach((server, i) => {
      const problem = issuerProblem(server);
      if (problem !== undefined)
        issues.add(`authorizationServers[${i}] ${problem} (got ${describeValue(server)})`);
    });
  }
  const verifier = options.verifier ?? jwt();
  if (typeof verifier?.create !== 'function') {
    issues.add('verifier must be made by jwt(), introspection(), staticTokens() or custom()');
  }
  const requiredScopes = checkScopes(issues, 'requiredScopes', options.requiredScopes);
  const scopesSupported = checkScopes(issues, 'scopesSupported', options.scopesSupported) ?? requiredScopes;
  const challengeScopes = checkScopes(issues, 'challengeScopes', options.challengeScopes);
  const implies = checkImplies(issues, options.implies);
  const maxAge = options.metadataMaxAgeSeconds ?? 3600;
  if (!Number.isInteger(maxAge) || maxAge < 0)
    issues.add(`metadataMaxAgeSeconds must be an integer ≥ 0 (got ${describeValue(maxAge)})`);
  const maxTokenLength = options.maxTokenLength ?? 8192;
  if (!Number.isInteger(maxTokenLength) || maxTokenLength < 16) {
    issues.add(`maxTokenLength must be an integer ≥ 16 (got ${describeValue(maxTokenLength)})`);
  }
  if (options.visibility !== undefined && options.visibility !== 'all' && options.visibility !== 'hide') {
    issues.add(`visibility must be 'all' or 'hide' (got ${describeValue(options.visibility)})`);
  }
  if (options.rootMetadata !== undefined && typeof options.rootMetadata !== 'boolean') {
    issues.add(`rootMetadata must be a boolean (got ${describeValue(options.rootMetadata)})`);
  }
  if (options.resourceName !== undefined && typeof options.resourceName !== 'string') {
    issues.add(`resourceName must be a string (got ${describeValue(options.resourceName)})`);
  }
  if (
    options.resourceDocumentation !== undefined &&
    canonicalUrl(String(options.resourceDocumentation)) === undefined
  ) {
    issues.add(
      `resourceDocumentation must be an http(s) URL (got ${describeValue(options.resourceDocumentation)})`,
    );
  }
  issues.throwIfAny(optionsError);
  const resource = canonicalUrl(options.resource) as string;
  return {
    resource,
    metadataUrl: metadataUrlOf(resource),
    authorizationServers: Object.freeze([...servers]),
    verifier,
    requiredScopes: requiredScopes?.length ? requiredScopes : undefined,
    scopesSupported,
    challengeScopes,
    policy: new ScopePolicy(implies, scopesSupported),
    rootMetadata: options.rootMetadata ?? true,
    metadataMaxAgeSeconds: maxAge,
    maxTokenLength,
    visibility: options.visibility ?? 'all',
  };
}
