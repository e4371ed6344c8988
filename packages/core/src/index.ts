// The public API of @pier/core. Transport authors find their contract in `@pier/core/transport`.

// The SDK types handlers and tests name: results, content, capabilities, the caller's identity.
export type {
  AuthInfo,
  CallToolResult,
  ClientCapabilities,
  ContentBlock,
  GetPromptResult,
  ListRootsResult,
  PromptMessage,
  ReadResourceResult,
  ServerCapabilities,
} from '@modelcontextprotocol/server';
// Marks a prompt argument as completable: `args: { city: completable(z.string(), (typed) => [...]) }`.
export { completable } from '@modelcontextprotocol/server';
export type {
  AppCsp,
  AppResourceMeta,
  AppToolMeta,
  AppToolVisibility,
  ResourceMeta,
  ToolMeta,
} from './apps.js';
export { APP_MIME_TYPE, APPS_EXTENSION_ID } from './apps.js';
export type { CloseHook } from './close-hooks.js';
export type { BinaryData, EmbeddedResourceContents } from './content.js';
export { audioContent, embeddedResource, imageContent } from './content.js';
export type {
  ClientCapability,
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
  HttpAuthenticator,
  HttpAuthOutcome,
  HttpRefusal,
  HttpRequestHead,
  HttpRoute,
  McpObserver,
  MethodHandler,
  ObservedClientRequest,
  ObservedNotification,
  ObservedOutcome,
  ObservedRequest,
  ObservedSession,
  ObservedStream,
  ObservedTaskStatus,
  PierPlugin,
  PluginContext,
  ScopeChallenge,
  ServerInfo,
} from './contract.js';
export type {
  CompleteVariable,
  FixedResourceOptions,
  JsonObjectSchema,
  JsonSchema,
  ListedResource,
  ListedResources,
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
  TemplateResourceOptions,
  ToolDeclaration,
  ToolDefinition,
  ToolOptions,
  ToolReturn,
  ToolTaskSupport,
  ZodShape,
} from './declaration.js';
export type { MemberDecorator, ServerClassDecorator } from './decorators.js';
export { MCPServer, Prompt, Resource, Tool } from './decorators.js';
export { definePrompt, defineResource, defineServer, defineTool } from './define.js';
export type { Middleware, MiddlewareContext, MiddlewareMatch, Target } from './engine/middleware.js';
export type { PierErrorCode, RefusalOptions } from './errors.js';
export { MissingClientCapabilityError, PierError, RequestRefusedError } from './errors.js';
export type { InMemoryKeyValueStoreOptions, KeyValueStore } from './kv-store.js';
export { InMemoryKeyValueStore } from './kv-store.js';
export type { LifecycleListener, LifecycleState } from './lifecycle.js';
export type {
  ConcurrencyLimitCheck,
  InMemoryLimitStoreOptions,
  LimitCheck,
  LimitHold,
  LimitOutcome,
  LimitStore,
  QuotaLimitCheck,
  RateLimitCheck,
} from './limit-store.js';
export { InMemoryLimitStore } from './limit-store.js';
export type { LogFields, Logger, LoggerOptions, LogLevel, LogStream } from './logger.js';
export { createLogger } from './logger.js';
export type { Icon, Meta } from './meta.js';
export { jsonSchema } from './schema.js';
export type {
  CloseOptions,
  CreateServerOptions,
  ListenOptions,
  PierServer,
  RequestStateOptions,
  StreamableHttpListenOptions,
  TransportListenOptions,
} from './server.js';
export { createServer } from './server.js';
export type { MCPServerOptions, ServerDeclaration } from './server-declaration.js';
export type { SkillCatalogChanges, SkillFiles, SkillSource, SkillsOption } from './skills.js';
export type { StdioListenOptions } from './stdio.js';
export type {
  InMemoryTaskStoreOptions,
  StoredTask,
  TaskError,
  TaskRecord,
  TaskStatus,
  TaskStore,
} from './task-store.js';
export { InMemoryTaskStore } from './task-store.js';
export type { TasksOptions } from './tasks.js';
export { TASKS_EXTENSION_ID } from './tasks.js';
export type { BusEvent, EventBus, ListenResult, PierTransport } from './transport-contract.js';
