// Proxy mode (AUTH_UPSTREAM_ISSUER, AUTH_UPSTREAM_CLIENT_ID, AUTH_UPSTREAM_CLIENT_SECRET): the server is its own
// OAuth authorization server for MCP clients (@pier/oauth-proxy), and users log in with GitHub, Google or
// any OpenID Connect provider. With REDIS_URL, the proxy's state is shared by every replica.
import type { KeyValueStore, Logger } from '@pier/core';
import { github, google, type OAuthProxy, oauthProxy, oidc, type UpstreamProvider } from '@pier/oauth-proxy';
import { redisKeyValueStore } from '@pier/redis';
import { type AppConfig, proxyResource } from './config.js';
import { REDIS_KEY_PREFIX } from './redis-notes-store.js';

/** What the notes' scopes let a client do, as the consent page says it. */
export const NOTES_SCOPES: Readonly<Record<string, string>> = {
  'notes:read': 'list, search and read your notes',
  'notes:write': 'add and delete your notes',
};

/** Where the proxy keeps its state in Redis (scale-out mode). */
export const OAUTH_KEY_PREFIX = `${REDIS_KEY_PREFIX}oauth:`;

/** The proxy plugin, and what to close with the server. */
export interface ProxyParts {
  readonly plugin: OAuthProxy;
  close(): Promise<void>;
}

/**
 * The OAuth proxy for `config`, or `undefined` outside proxy mode. `readConfig` already checked that the
 * three AUTH_UPSTREAM_* settings come together and that the resource URL is known.
 */
export function oauthProxyParts(config: AppConfig, logger: Logger): ProxyParts | undefined {
  const {
    authUpstreamIssuer: issuer,
    authUpstreamClientId: clientId,
    authUpstreamClientSecret: clientSecret,
  } = config;
  if (issuer === undefined || clientId === undefined || clientSecret === undefined) return undefined;
  let store: (KeyValueStore & { close(): Promise<void> }) | undefined;
  if (config.redisUrl !== undefined)
    store = redisKeyValueStore({ url: config.redisUrl, prefix: OAUTH_KEY_PREFIX });
  const plugin = oauthProxy({
    resource: proxyResource(config) as string,
    upstream: upstreamOf(issuer, clientId, clientSecret),
    scopes: Object.keys(NOTES_SCOPES),
    scopeDescriptions: NOTES_SCOPES,
    ...(store !== undefined && { store }),
    auth: { resourceName: 'Pier notes' },
  });
  // The callback URL is what the operator registers at the provider: worth a line at start.
  logger.info('OAuth proxy mode', { provider: providerName(issuer), callbackUrl: plugin.callbackUrl });
  return { plugin, close: async () => store?.close() };
}

/** GitHub and Google by their well-known addresses; anything else is an OpenID Connect issuer. */
export function upstreamOf(issuer: string, clientId: string, clientSecret: string): UpstreamProvider {
  switch (providerName(issuer)) {
    case 'github':
      return github({ clientId, clientSecret });
    case 'google':
      return google({ clientId, clientSecret });
    default:
      return oidc({ issuer, clientId, clientSecret });
  }
}

function providerName(issuer: string): 'github' | 'google' | 'oidc' {
  const { origin, pathname } = new URL(issuer);
  if (pathname !== '/' && pathname !== '') return 'oidc';
  if (origin === 'https://github.com') return 'github';
  if (origin === 'https://accounts.google.com') return 'google';
  return 'oidc';
}
