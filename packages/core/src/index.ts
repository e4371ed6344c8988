// Marks a prompt argument as completable: `args: { city: completable(z.string(), (typed) => [...]) }`.
export { completable } from '@modelcontextprotocol/server';
export type { CloseHook } from './close-hooks.js';
export type { BinaryData, EmbeddedResourceContents } from './content.js';
export { audioContent, embeddedResource, imageContent } from './content.js';
export type {
  ClientRequestOptions,
  ElicitationRequest,
  ElicitationResult,
  ProgressOptions,
  PromptContext,
  RequestContext,
  ResourceContext,
  SamplingRequest,
  SamplingResult,
  ToolContext,
} from './context.js';
export type {
  CloseReason,
  HttpRoute,
  HttpTransportModule,
  ListenResult,
  McpServerOptions,
  PierPlugin,
  PluginContext,
  RunningTransport,
  ServerInfo,
  TransportCloseOptions,
  TransportHost,
} from './contract.js';
export type {
  CompleteVariable,
  FixedResourceOptions,
  ListedResource,
  ListedResources,
  MCPServerOptions,
  ObjectSchema,
  PromptDeclaration,
  PromptDefinition,
  PromptOptions,
  PromptReturn,
  ResourceDeclaration,
  ResourceOptions,
  ResourceReturn,
  SchemaInput,
  SchemaOutput,
  ServerDeclaration,
  TemplateResourceOptions,
  ToolDeclaration,
  ToolDefinition,
  ToolOptions,
  ToolReturn,
  ZodShape,
} from './declaration.js';
export type { MemberDecorator, ServerClassDecorator } from './decorators.js';
export { MCPServer, Prompt, Resource, Tool } from './decorators.js';
export { definePrompt, defineResource, defineServer, defineTool } from './define.js';
export type { PierErrorCode } from './errors.js';
export { PierError } from './errors.js';
export type * from './http-options.js';
export type { LifecycleListener, LifecycleState } from './lifecycle.js';
export { Lifecycle } from './lifecycle.js';
export type { LogFields, Logger, LoggerOptions, LogLevel, LogStream } from './logger.js';
export { createLogger } from './logger.js';
export type {
  CloseOptions,
  CreateServerOptions,
  ListenOptions,
  PierServer,
  StreamableHttpListenOptions,
} from './server.js';
export { createServer, TRANSPORTS } from './server.js';
export type { StdioListenOptions } from './stdio.js';
