export type {
  CloseReason,
  HttpListenOptions,
  HttpRoute,
  HttpTransportModule,
  ListenResult,
  RunningTransport,
  ServerInfo,
  TransportCloseOptions,
  TransportHost,
} from './contract.js';
export type { LifecycleListener, LifecycleState } from './lifecycle.js';
export { Lifecycle } from './lifecycle.js';
export type { LogFields, Logger, LogLevel } from './logger.js';
