// `@pier/core/transport`: what a transport needs to serve a Pier server. `@pier/transport-http` is built on
// it, and so can your own. The SDK pieces are re-exported from the one copy core uses, so a transport and
// core can never run two SDK versions side by side.

export type {
  AuthInfo,
  EventId,
  EventStore,
  JSONRPCMessage,
  McpHttpHandler,
  McpServer,
  MessageExtraInfo,
  RequestId,
  ScopeChallengeHandler,
  StreamId,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';
export {
  bearerAuthChallengeResponse,
  classifyInboundRequest,
  createMcpHandler,
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  InMemoryServerEventBus,
  isInitializeRequest,
  isJsonContentType,
  localhostAllowedHostnames,
  OAuthError,
  OAuthErrorCode,
  PROTOCOL_VERSION_META_KEY,
  parseJSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
  validateHostHeader,
} from '@modelcontextprotocol/server';
export type {
  HttpAuthenticator,
  HttpAuthOutcome,
  HttpRefusal,
  HttpRoute,
  ObservedStream,
  ScopeChallenge,
  ServerInfo,
} from './contract.js';
// Helpers every Pier package shares: a secret-free description of a bad value, Node's longest timer,
// the message of anything thrown.
export { describe as describeValue, MAX_TIMER_MS, messageOf } from './errors.js';
export type { LifecycleListener, LifecycleState } from './lifecycle.js';
export { Lifecycle } from './lifecycle.js';
export type { Logger } from './logger.js';
export type {
  BusEvent,
  CloseReason,
  DirectCallOutcome,
  DirectCallRequest,
  DirectToolCalls,
  EventBus,
  ListenResult,
  PierTransport,
  RunningTransport,
  SdkServerOptions,
  TransportCloseOptions,
  TransportHost,
} from './transport-contract.js';
