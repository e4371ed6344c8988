// oauthProxy(): an OAuth 2.1 authorization server for this MCP server, in front of an identity provider that
// has no dynamic registration (GitHub, Google, Entra ID…). To MCP clients it is a complete authorization
// server; to the provider it is one ordinary client. The MCP endpoint itself is guarded by
// @pier/plugin-auth's resource server, verifying the proxy's own tokens.
import { InMemoryKeyValueStore, type Logger, type PierPlugin } from '@pier/core';
import { type AuthPlugin, authPlugin } from '@pier/plugin-auth';
import { authorize, consent } from './authorize.js';
import { callback } from './callback.js';
import { ClientRegistry } from './clients.js';
import { canonicalResource, PATHS, type ProxyContext, type ProxyUrls } from './context.js';
import { Sealer } from './crypto.js';
import { Grants } from './grants.js';
import { SigningKeys } from './keys.js';
import { jwksHandler, metadataHandler } from './metadata.js';
import { type OAuthProxyOptions, resolveOptions } from './options.js';
import { refusal } from './pages.js';
import { served } from './served.js';
import { ProxyStore } from './store.js';
import { revoke, token } from './token.js';
import { proxyVerifier } from './verifier.js';
import { pageHeaders, preflight, type WebHandler, type WebRoute } from './web.js';

/**
 * A GET endpoint that changes state (a pending request, a spent login) answers HEAD without running: link
 * checkers and prefetchers must not start or finish logins.
 */
function headless(handler: WebHandler): WebHandler {
  return (request) =>
    request.method === 'HEAD'
      ? Promise.resolve(new Response(null, { status: 200, headers: pageHeaders() }))
      : handler(request);
}

/** What {@link oauthProxy} returns: the plugin, and what an operator needs to know about it. */
export interface OAuthProxy extends PierPlugin {
  /** The proxy's issuer: the origin of `resource`. MCP clients find it in the protected resource metadata. */
  readonly issuer: string;
  /** Register this as the (only) callback / redirect URL of the OAuth app at the provider. */
  readonly callbackUrl: string;
  /** The protected resource metadata URL (RFC 9728) of the MCP endpoint. */
  readonly metadataUrl: string;
  /**
   * Every endpoint of the proxy as a web-standard handler, `(request: Request) => Promise<Response>`: the
   * plugin registers them as routes, which every HTTP transport serves (node listener, fetch handler).
   */
  readonly routes: readonly WebRoute[];
  /** The resource server it set up (`@pier/plugin-auth`): its `keysCheck` for `@pier/plugin-health`. */
  readonly auth: AuthPlugin;
}

/**
 * Lets MCP clients log in with an identity provider that only knows pre-registered clients. Add the plugin
 * to a server served over streamable HTTP; register `callbackUrl` at the provider.
 *
 * @example
 * ```ts
 * import { github, oauthProxy } from '@pier/oauth-proxy';
 *
 * const proxy = oauthProxy({
 *   resource: 'https://notes.example.com/mcp',
 *   upstream: github({ clientId: config.githubClientId, clientSecret: config.githubClientSecret }),
 *   scopes: ['notes:read', 'notes:write'],
 * });
 * createServer(defineServer({ name: 'notes', version: '1.0.0', plugins: [proxy], tools }));
 * ```
 */
export function oauthProxy(options: OAuthProxyOptions): OAuthProxy {
  const settings = resolveOptions(options);
  const resource = canonicalResource(settings.resource) as string;
  let logger: Logger | undefined;
  let serverName = settings.serverName;
  const urls = Object.fromEntries(
    (['authorize', 'consent', 'callback', 'token', 'revoke', 'register', 'jwks'] as const).map((name) => [
      name,
      `${settings.issuer}${PATHS[name]}`,
    ]),
  ) as unknown as ProxyUrls;
  const store = new ProxyStore(
    settings.store ?? new InMemoryKeyValueStore(),
    new Sealer(settings.secret),
    settings.storePrefix,
  );
  const upstream = { fetch: settings.fetch, timeoutMs: settings.upstreamTimeoutMs };
  const keys = new SigningKeys(store, settings.rotationMs, settings.accessTokenTtlMs);
  const grants = new Grants({
    store,
    keys,
    issuer: settings.issuer,
    resource,
    accessTokenTtlMs: settings.accessTokenTtlMs,
    refreshTokenTtlMs: settings.refreshTokenTtlMs,
    upstream: settings.upstream,
    context: upstream,
    logger: () => logger,
  });
  const secure = settings.issuer.startsWith('https:');
  const proxy: ProxyContext = {
    settings,
    resource,
    urls,
    store,
    clients: new ClientRegistry({
      store,
      registrationTtlMs: settings.registrationTtlMs,
      documents: settings.documents,
      logger: () => logger,
    }),
    grants,
    keys,
    upstream,
    logger: () => logger,
    serverName: () => serverName ?? 'this MCP server',
    // `__Host-` binds the cookie to this exact origin; browsers accept it over https only.
    cookieName: secure ? '__Host-pier-oauth' : 'pier-oauth',
    secureCookies: secure,
  };
  const auth = authPlugin({
    ...settings.auth,
    resource: settings.resource,
    authorizationServers: [settings.issuer],
    scopesSupported: settings.scopes,
    verifier: proxyVerifier(keys, grants),
  });

  /** Every endpoint answers; an unexpected failure is logged (without the request) and answered 500. */
  const guarded =
    (path: string, handler: WebHandler): WebHandler =>
    async (request) => {
      try {
        return await handler(request);
      } catch (error) {
        logger?.error('OAuth endpoint failed', {
          path,
          error: error instanceof Error ? error.message : 'unknown',
        });
        return refusal(request, 500, 'server_error', 'The authorization server failed; try again');
      }
    };
  const open = (method: WebRoute['method'], path: string, handler: WebHandler): WebRoute[] => [
    { method, path, handler: guarded(path, handler) },
    { method: 'OPTIONS', path, handler: preflight },
  ];
  const routes: WebRoute[] = [
    ...open('GET', PATHS.metadata, metadataHandler(proxy, false)),
    ...open('GET', PATHS.openidConfiguration, metadataHandler(proxy, true)),
    ...open('GET', PATHS.jwks, jwksHandler(proxy)),
    {
      method: 'GET',
      path: PATHS.authorize,
      handler: guarded(
        PATHS.authorize,
        headless((r) => authorize(proxy, r)),
      ),
    },
    { method: 'POST', path: PATHS.consent, handler: guarded(PATHS.consent, (r) => consent(proxy, r)) },
    {
      method: 'GET',
      path: PATHS.callback,
      handler: guarded(
        PATHS.callback,
        headless((r) => callback(proxy, r)),
      ),
    },
    ...open('POST', PATHS.token, (r) => token(proxy, r)),
    ...open('POST', PATHS.revoke, (r) => revoke(proxy, r)),
    ...(settings.dynamicRegistration ? open('POST', PATHS.register, (r) => proxy.clients.register(r)) : []),
  ];

  return {
    name: 'oauth-proxy',
    issuer: settings.issuer,
    callbackUrl: urls.callback,
    metadataUrl: auth.metadataUrl,
    routes,
    auth,
    setup(ctx) {
      logger = ctx.logger;
      serverName ??= ctx.server.name;
      auth.setup(ctx);
      for (const route of routes) {
        ctx.addRoute({
          method: route.method,
          path: route.path,
          handler: served(route.handler, settings.issuer),
        });
      }
    },
  };
}
