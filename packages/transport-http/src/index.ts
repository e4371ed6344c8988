export type {
  HttpCorsOptions,
  HttpListenOptions,
  HttpResumabilityOptions,
  RunningTransport,
  TransportCloseOptions,
  TransportHost,
} from '@pier/core';
export type { HttpTransportErrorCode } from './errors.js';
export { HttpTransportError } from './errors.js';
export { startHttpTransport } from './server.js';
