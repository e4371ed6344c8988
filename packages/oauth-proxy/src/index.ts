export { OAuthProxyError, type OAuthProxyErrorCode } from './errors.js';
export type { ClientMetadataDocumentOptions, OAuthProxyOptions, ProxyAuthOptions } from './options.js';
export { type OAuthProxy, oauthProxy } from './proxy.js';
export { type GitHubOptions, github } from './upstream/github.js';
export { type GoogleOptions, google, type OidcOptions, oidc } from './upstream/oidc.js';
export type { UpstreamProvider, UpstreamUser } from './upstream/provider.js';
export { UpstreamToken, upstreamToken } from './upstream-token.js';
export type { WebHandler, WebRoute } from './web.js';
