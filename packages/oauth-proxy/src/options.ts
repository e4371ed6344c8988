// oauthProxy()'s options, checked once: every problem named at once, no secret ever quoted.
import type { KeyValueStore } from '@pier/core';
import { describeValue, OptionIssues } from '@pier/core';
import type { AuthPluginOptions } from '@pier/plugin-auth';
import { optionsError } from './errors.js';
import { checkScopes } from './upstream/checks.js';
import { CLIENT_SECRET, type UpstreamProvider } from './upstream/provider.js';

/** What {@link oauthProxy} passes on to `@pier/plugin-auth`'s resource server (all optional). */
export type ProxyAuthOptions = Partial<
  Pick<
    AuthPluginOptions,
    | 'requiredScopes'
    | 'challengeScopes'
    | 'implies'
    | 'rootMetadata'
    | 'resourceName'
    | 'resourceDocumentation'
    | 'metadataMaxAgeSeconds'
    | 'maxTokenLength'
    | 'visibility'
  >
>;

/** Client ID metadata documents: how the proxy fetches them. */
export interface ClientMetadataDocumentOptions {
  /** The fetch used for documents (a proxy-aware or egress-restricted fetch, or a test double). Default `fetch`. */
  readonly fetch?: typeof fetch;
  /** Bound on fetching one document, in milliseconds. Default 5000. */
  readonly timeoutMs?: number;
}

/** Options of {@link oauthProxy}. */
export interface OAuthProxyOptions {
  /**
   * The canonical URL of this server's MCP endpoint (`https://notes.example.com/mcp`): the audience of every
   * token the proxy issues. The proxy's issuer is its origin. https (http for loopback only).
   */
  readonly resource: string;
  /** The identity provider users log in with: `github(…)`, `google(…)` or `oidc(…)`. */
  readonly upstream: UpstreamProvider;
  /**
   * The scopes of this MCP server that clients may ask for (`notes:read`, `notes:write`): published in both
   * metadata documents and offered on the consent page. Default none.
   */
  readonly scopes?: readonly string[];
  /** What each scope lets a client do, in the user's words, for the consent page. */
  readonly scopeDescriptions?: Readonly<Record<string, string>>;
  /**
   * Where registrations, pending logins, codes, grants and keys live. Default: in this process's memory
   * (one replica). Several replicas: `redisKeyValueStore(…)` from `@pier/redis`, the same for all.
   */
  readonly store?: KeyValueStore;
  /** Prefix of the proxy's keys in the store. Default `oauth:`. */
  readonly storePrefix?: string;
  /**
   * Seals everything the proxy writes to the store (AES-256-GCM), at least 32 characters, the same on every
   * replica. Default: derived from the provider's client secret. Changing it forgets every login.
   */
  readonly secret?: string;
  /** Lifetime of access tokens, in seconds (60 – 86 400). Default 3600. */
  readonly accessTokenTtlSeconds?: number;
  /** A login is forgotten when its refresh token is not used for this long, in seconds. Default 30 days. */
  readonly refreshTokenTtlSeconds?: number;
  /** Lifetime of authorization codes, in seconds (1 – 600). Default 60. */
  readonly authorizationCodeTtlSeconds?: number;
  /** How long a user has from the authorization request to the provider's answer, in seconds (60 – 3600). Default 600. */
  readonly loginTimeoutSeconds?: number;
  /** A registered client is forgotten when unused for this long, in seconds. Default 90 days. */
  readonly registrationTtlSeconds?: number;
  /** How often the signing key changes, in seconds (≥ 1). Default 7 days. */
  readonly signingKeyRotationSeconds?: number;
  /** Dynamic client registration (RFC 7591) at `/oauth/register`. Default `true`. */
  readonly dynamicRegistration?: boolean;
  /** Client ID metadata documents (https `client_id`s). Default `true`. */
  readonly clientMetadataDocuments?: boolean | ClientMetadataDocumentOptions;
  /** The fetch used to call the provider. Default `fetch`. */
  readonly fetch?: typeof fetch;
  /** Bound on each call to the provider, in milliseconds. Default 10 000. */
  readonly upstreamTimeoutMs?: number;
  /** What the consent page calls this server. Default `auth.resourceName`, else the server's name. */
  readonly serverName?: string;
  /** Options of the resource server (`@pier/plugin-auth`) the proxy sets up for the MCP endpoint. */
  readonly auth?: ProxyAuthOptions;
}

export interface Settings {
  readonly resource: string;
  readonly issuer: string;
  readonly upstream: UpstreamProvider;
  readonly scopes: readonly string[];
  readonly scopeDescriptions: Readonly<Record<string, string>>;
  readonly store: KeyValueStore | undefined;
  readonly storePrefix: string;
  readonly secret: string;
  readonly accessTokenTtlMs: number;
  readonly refreshTokenTtlMs: number;
  readonly codeTtlMs: number;
  readonly loginTimeoutMs: number;
  readonly registrationTtlMs: number;
  readonly rotationMs: number;
  readonly dynamicRegistration: boolean;
  readonly documents: { readonly fetch: typeof fetch; readonly timeoutMs: number } | undefined;
  readonly fetch: typeof fetch;
  readonly upstreamTimeoutMs: number;
  readonly serverName: string | undefined;
  readonly auth: ProxyAuthOptions;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const DAY = 86_400;

export function resolveOptions(options: OAuthProxyOptions): Settings {
  const issues = new OptionIssues('oauthProxy()');
  if (options === null || typeof options !== 'object') {
    issues.add('expects an options object { resource, upstream }');
    issues.throwIfAny(optionsError);
  }
  const resource = options.resource;
  let issuer = '';
  if (typeof resource !== 'string' || !URL.canParse(resource)) {
    issues.add(
      `resource must be an absolute URL such as https://notes.example.com/mcp (got ${describeValue(resource)})`,
    );
  } else {
    const url = new URL(resource);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
      issues.add('resource must use https (http is accepted for 127.0.0.1, localhost and [::1] only)');
    }
    if (url.search !== '' || url.hash !== '' || resource.includes('#'))
      issues.add('resource must have no query string or fragment');
    if (url.username !== '' || url.password !== '') issues.add('resource must not carry user information');
    if (url.pathname.length > 1 && url.pathname.endsWith('/'))
      issues.add("resource must not end with a slash (the MCP spec's canonical form)");
    issuer = url.origin;
  }
  const upstream = options.upstream;
  const isProvider =
    typeof upstream?.identify === 'function' && typeof upstream?.[CLIENT_SECRET] === 'function';
  if (!isProvider) issues.add('upstream must be made by github(), google() or oidc()');
  const scopes = checkScopes(issues, 'scopes', options.scopes) ?? [];
  if (scopes.includes('offline_access')) {
    issues.add(
      'scopes must not include offline_access (refresh tokens go to every client registered for them)',
    );
  }
  const descriptions = options.scopeDescriptions ?? {};
  if (
    typeof descriptions !== 'object' ||
    descriptions === null ||
    !Object.values(descriptions).every((d) => typeof d === 'string')
  ) {
    issues.add('scopeDescriptions must be an object of strings');
  }
  const secret = options.secret ?? (isProvider ? upstream[CLIENT_SECRET]() : undefined);
  if (options.secret !== undefined && (typeof options.secret !== 'string' || options.secret.length < 32)) {
    issues.add(
      `secret must be a string of at least 32 characters (got ${options.secret === undefined ? 'nothing' : `a ${typeof options.secret} of ${String(options.secret).length} characters`})`,
    );
  } else if (isProvider && secret === undefined) {
    issues.add('secret is required when the provider client has no clientSecret (it seals the store)');
  }
  const store = options.store;
  if (
    store !== undefined &&
    !['get', 'set', 'add', 'take', 'delete'].every(
      (m) => typeof (store as unknown as Record<string, unknown>)[m] === 'function',
    )
  ) {
    issues.add('store must be a KeyValueStore (get, set, add, take, delete)');
  }
  const prefix = options.storePrefix ?? 'oauth:';
  if (typeof prefix !== 'string' || prefix === '')
    issues.add(`storePrefix must be a non-empty string (got ${describeValue(prefix)})`);
  const seconds = (name: keyof OAuthProxyOptions, fallback: number, min: number, max: number): number => {
    const value = options[name] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      issues.add(`${name} must be an integer from ${min} to ${max} (got ${describeValue(value)})`);
      return fallback * 1000;
    }
    return value * 1000;
  };
  const accessTokenTtlMs = seconds('accessTokenTtlSeconds', 3600, 1, DAY);
  const refreshTokenTtlMs = seconds('refreshTokenTtlSeconds', 30 * DAY, 60, 400 * DAY);
  const codeTtlMs = seconds('authorizationCodeTtlSeconds', 60, 1, 600);
  const loginTimeoutMs = seconds('loginTimeoutSeconds', 600, 60, 3600);
  const registrationTtlMs = seconds('registrationTtlSeconds', 90 * DAY, 60, 400 * DAY);
  const rotationMs = seconds('signingKeyRotationSeconds', 7 * DAY, 1, 90 * DAY);
  const flag = (name: keyof OAuthProxyOptions, fallback: boolean): boolean => {
    const value = options[name] ?? fallback;
    if (typeof value !== 'boolean') issues.add(`${name} must be a boolean (got ${describeValue(value)})`);
    return value === true;
  };
  const dynamicRegistration = flag('dynamicRegistration', true);
  const cimd = options.clientMetadataDocuments ?? true;
  let documents: Settings['documents'];
  if (cimd === true || (typeof cimd === 'object' && cimd !== null)) {
    const given = cimd === true ? {} : cimd;
    const timeoutMs = given.timeoutMs ?? 5_000;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
      issues.add(
        `clientMetadataDocuments.timeoutMs must be a positive integer (got ${describeValue(timeoutMs)})`,
      );
    if (given.fetch !== undefined && typeof given.fetch !== 'function')
      issues.add('clientMetadataDocuments.fetch must be a function');
    documents = { fetch: given.fetch ?? ((input, init) => fetch(input, init)), timeoutMs };
  } else if (cimd !== false) {
    issues.add('clientMetadataDocuments must be a boolean or { fetch?, timeoutMs? }');
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function')
    issues.add('fetch must be a function');
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? 10_000;
  if (!Number.isInteger(upstreamTimeoutMs) || upstreamTimeoutMs < 1) {
    issues.add(`upstreamTimeoutMs must be a positive integer (got ${describeValue(upstreamTimeoutMs)})`);
  }
  if (
    options.serverName !== undefined &&
    (typeof options.serverName !== 'string' || options.serverName.trim() === '')
  ) {
    issues.add(`serverName must be a non-empty string (got ${describeValue(options.serverName)})`);
  }
  const auth = options.auth ?? {};
  if (typeof auth !== 'object' || auth === null)
    issues.add('auth must be an object of @pier/plugin-auth options');
  for (const key of ['resource', 'authorizationServers', 'verifier', 'scopesSupported']) {
    if (key in auth) issues.add(`auth.${key} is set by the proxy itself`);
  }
  issues.throwIfAny(optionsError);
  return {
    resource,
    issuer,
    upstream,
    scopes,
    scopeDescriptions: { ...descriptions },
    store,
    storePrefix: prefix,
    secret: secret as string,
    accessTokenTtlMs,
    refreshTokenTtlMs,
    codeTtlMs,
    loginTimeoutMs,
    registrationTtlMs,
    rotationMs,
    dynamicRegistration,
    documents,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    upstreamTimeoutMs,
    serverName: options.serverName ?? auth.resourceName,
    auth,
  };
}
