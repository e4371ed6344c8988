// `@pier/core/transport`: what a transport needs to serve a Pier server. `@pier/transport-http` is built on
// it, and so can your own: read bytes, classify the era with `classifyEra`, hand each message to
// `host.engine.handle`, write back its `Answer`. The SDK pieces are re-exported from the one copy core
// uses, so a transport and core can never run two SDK versions side by side.

export type {
  AuthInfo,
  EventId,
  EventStore,
  JSONRPCMessage,
  StreamId,
  Transport,
} from '@modelcontextprotocol/server';
export {
  InMemoryServerEventBus,
  isJsonContentType,
  localhostAllowedHostnames,
  validateHostHeader,
} from '@modelcontextprotocol/server';
export type { Inbound } from './engine/call.js';
export type { Classification, ClassifyInput, Envelope, HeaderReader, Refusal } from './engine/classify.js';
export { classifyEra } from './engine/classify.js';
export type { ConnectionOptions, MessageSink } from './engine/connection.js';
export type { Answer } from './engine/engine.js';
export { addHeaders, type HeaderList, headerIn } from './engine/headers.js';
export type { Message, RequestId, ResponseMessage, RpcErrorBody } from './engine/wire.js';
export { ErrorCode, echoId, LEGACY_VERSIONS, MODERN_VERSION } from './engine/wire.js';
export type { Logger } from './logger.js';
export type {
  HttpAuthenticator,
  HttpAuthOutcome,
  HttpRefusal,
  HttpRequestHead,
  HttpRoute,
  ObservedStream,
  PlainHttpAnswer,
  ScopeChallenge,
  ServerInfo,
} from './plugins/api.js';
export type {
  BusEvent,
  CloseReason,
  EngineConnection,
  EventBus,
  ListenResult,
  McpEngine,
  PierTransport,
  RunningTransport,
  TransportCloseOptions,
  TransportHost,
} from './transports/host.js';
export type { ServedTransport, ServeTransportOptions } from './transports/serve.js';
export { serveTransport } from './transports/serve.js';
