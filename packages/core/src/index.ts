export type {
  CloseReason,
  HttpRoute,
  HttpTransportModule,
  ListenResult,
  PierPlugin,
  PluginContext,
  RunningTransport,
  ServerInfo,
  TransportCloseOptions,
  TransportHost,
} from './contract.js';
export type { PromptDeclaration, ResourceDeclaration, ToolDeclaration } from './declaration.js';
export type { HttpListenOptions } from './http-options.js';
export type { LifecycleListener, LifecycleState } from './lifecycle.js';
export { Lifecycle } from './lifecycle.js';
export type { LogFields, Logger, LogLevel } from './logger.js';
