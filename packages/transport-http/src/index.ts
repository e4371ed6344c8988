// The public API of @pier/transport-http.
export type { HttpTransportErrorCode } from './errors.js';
export { HttpTransportError } from './errors.js';
export type { HandlerTarget, HttpHandlerOptions, ServableServer } from './mount.js';
export type { NodeHandler } from './node-handler.js';
export { createNodeHandler } from './node-handler.js';
export type { HttpCorsOptions, HttpListenOptions, HttpResumabilityOptions } from './options.js';
export { httpTransport, startHttpTransport } from './server.js';
export type {
  Clock,
  RelayedRequest,
  SessionClaim,
  SessionRegistry,
  SessionRegistryInit,
  SessionRelay,
} from './sessions.js';
