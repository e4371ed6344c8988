export { type AuthDetails, authDetails, REDACTED_TOKEN, unsafeRawToken } from './auth-info.js';
export {
  AuthPluginError,
  type AuthPluginErrorCode,
  type RejectionReason,
  TokenRejectedError,
} from './errors.js';
export { type IntrospectionOptions, introspection } from './introspection.js';
export { type JwtOptions, jwt } from './jwt.js';
export { type AuthKeysCheck, type AuthPlugin, type AuthPluginOptions, authPlugin } from './plugin.js';
export { custom, type StaticToken, staticTokens } from './simple-verifiers.js';
export type { ActiveVerifier, TokenVerifier, VerifiedToken, VerifierSettings } from './verifier.js';
