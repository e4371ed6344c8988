// What every endpoint of the proxy works with, built once by oauthProxy().
import type { Logger } from '@pier/core';
import type { ClientRegistry } from './clients.js';
import type { Grants } from './grants.js';
import type { SigningKeys } from './keys.js';
import type { Settings } from './options.js';
import type { ProxyStore } from './store.js';
import type { UpstreamContext } from './upstream/provider.js';

/** The proxy's endpoints, as absolute URLs (on the issuer's origin). */
export interface ProxyUrls {
  readonly authorize: string;
  readonly consent: string;
  readonly callback: string;
  readonly token: string;
  readonly revoke: string;
  readonly register: string;
  readonly jwks: string;
}

/** The paths of the endpoints under the issuer's origin. */
export const PATHS = {
  authorize: '/oauth/authorize',
  consent: '/oauth/consent',
  callback: '/oauth/callback',
  token: '/oauth/token',
  revoke: '/oauth/revoke',
  register: '/oauth/register',
  jwks: '/oauth/jwks',
  metadata: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
} as const;

export interface ProxyContext {
  readonly settings: Settings;
  /** The canonical resource URL (lowercase scheme and host, no trailing slash): every token's audience. */
  readonly resource: string;
  readonly urls: ProxyUrls;
  readonly store: ProxyStore;
  readonly clients: ClientRegistry;
  readonly grants: Grants;
  readonly keys: SigningKeys;
  readonly upstream: UpstreamContext;
  /** The plugin's logger, once the plugin is set up. */
  readonly logger: () => Logger | undefined;
  /** What the consent page calls this server. */
  readonly serverName: () => string;
  /** The name of the cookie binding a login to the browser that started it. */
  readonly cookieName: string;
  /** Whether cookies get `Secure` (an https issuer). */
  readonly secureCookies: boolean;
}

/** An authorization request the proxy accepted, as it waits for consent and then for the provider. */
export interface AuthorizationRequest {
  readonly clientId: string;
  readonly redirectUri: string;
  /** Whether the request named it (it may be left out when the client registered one): then so may the token request. */
  readonly redirectUriGiven: boolean;
  readonly state: string | undefined;
  readonly codeChallenge: string;
  /** The scopes asked for; the user may consent to fewer. */
  readonly scopes: readonly string[];
}

/** The canonical form of a resource URL (RFC 8707 comparison): lowercase scheme and host, no trailing slash. */
export function canonicalResource(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.hash !== '' || value.includes('#')) return undefined;
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}${path}${url.search}`;
}
