// GitHub: OAuth 2.0 without OpenID Connect. No discovery and no ID token: the user is whoever GitHub's user
// API says owns the token.
import { describeValue, OptionIssues } from '@pier/core';
import { OAuthProxyError, optionsError } from '../errors.js';
import { checkClient, checkEndpoint, checkScopes } from './checks.js';
import { fetchJson, providerBase, type UpstreamEndpoints, type UpstreamProvider } from './provider.js';

/** Options of {@link github}. */
export interface GitHubOptions {
  /** The OAuth App's (or GitHub App's) client id. */
  readonly clientId: string;
  /** Its client secret. Load it with `@pier/config` `secret: true`. */
  readonly clientSecret: string;
  /** GitHub scopes the proxy asks for (what tools may do with the user's GitHub token). Default `['read:user']`. */
  readonly scopes?: readonly string[];
  /** Default `https://github.com/login/oauth/authorize` (GitHub Enterprise Server, or a test double). */
  readonly authorizationEndpoint?: string;
  /** Default `https://github.com/login/oauth/access_token`. */
  readonly tokenEndpoint?: string;
  /** The user API. Default `https://api.github.com/user`. */
  readonly userEndpoint?: string;
  /** The user API's field that identifies the user (the `sub` of the proxy's tokens). Default `id`, which never changes; `login` can. */
  readonly userIdField?: string;
}

/**
 * GitHub as the identity provider: register an OAuth App (or a GitHub App) whose callback URL is the
 * proxy's `callbackUrl`, and give its client id and secret here.
 *
 * @example
 * ```ts
 * oauthProxy({ resource: 'https://notes.example.com/mcp', upstream: github({ clientId, clientSecret }) })
 * ```
 */
export function github(options: GitHubOptions): UpstreamProvider {
  const issues = new OptionIssues('github()');
  checkClient(issues, options, true);
  const scopes = checkScopes(issues, 'scopes', options?.scopes) ?? ['read:user'];
  const authorizationEndpoint = checkEndpoint(
    issues,
    'authorizationEndpoint',
    options?.authorizationEndpoint ?? 'https://github.com/login/oauth/authorize',
  );
  const tokenEndpoint = checkEndpoint(
    issues,
    'tokenEndpoint',
    options?.tokenEndpoint ?? 'https://github.com/login/oauth/access_token',
  );
  const userEndpoint = checkEndpoint(
    issues,
    'userEndpoint',
    options?.userEndpoint ?? 'https://api.github.com/user',
  );
  const idField = options?.userIdField ?? 'id';
  if (typeof idField !== 'string' || idField === '') {
    issues.add(`userIdField must be a non-empty string (got ${describeValue(idField)})`);
  }
  issues.throwIfAny(optionsError);
  const endpoints: UpstreamEndpoints = {
    authorizationEndpoint,
    tokenEndpoint,
    issParameterSupported: false,
    tokenEndpointAuthMethod: 'client_secret_post',
  };
  return {
    ...providerBase('GitHub', options.clientId, options.clientSecret),
    name: 'GitHub',
    clientId: options.clientId,
    scopes,
    authorizationParams: {},
    usesNonce: false,
    endpoints: async () => endpoints,
    async identify(tokens, context) {
      const user = await fetchJson(context, userEndpoint, "GitHub's user API", {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${tokens.accessToken}`,
        // GitHub's API refuses requests without a User-Agent.
        'user-agent': 'pier-oauth-proxy',
        'x-github-api-version': '2022-11-28',
      });
      const id = user[idField];
      if ((typeof id !== 'string' && typeof id !== 'number') || String(id) === '') {
        throw new OAuthProxyError('UPSTREAM_FAILED', `GitHub's user API answered no ${idField}`);
      }
      return {
        id: String(id),
        ...(typeof user.login === 'string' && { login: user.login }),
        ...(typeof user.name === 'string' && { name: user.name }),
        ...(typeof user.email === 'string' && { email: user.email }),
      };
    },
  };
}
