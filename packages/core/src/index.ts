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
} from './context/types.js';
export type { BinaryData, EmbeddedResourceContents } from './declaring/content.js';
export { audioContent, embeddedResource, imageContent } from './declaring/content.js';
export type { MemberDecorator, ServerClassDecorator } from './declaring/decorators.js';
export { MCPServer, Prompt, Resource, Tool } from './declaring/decorators.js';
export { definePrompt, defineResource, defineServer, defineTool } from './declaring/define.js';
export type { Icon, Meta } from './declaring/meta.js';
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
} from './declaring/model.js';
export { jsonSchema } from './declaring/schema.js';
export type { MCPServerOptions, ServerDeclaration } from './declaring/server-declaration.js';
export type { Middleware, MiddlewareContext, MiddlewareMatch, Target } from './engine/middleware.js';
export type { RequestStateKeySet, RequestStateKeys } from './engine/modern/request-state-keys.js';
export type { PierErrorCode, PierErrorOptions, RefusalOptions } from './errors.js';
export {
  describeValue,
  MissingClientCapabilityError,
  OptionIssues,
  PierError,
  RequestRefusedError,
} from './errors.js';
export type {
  AppCsp,
  AppResourceMeta,
  AppToolMeta,
  AppToolVisibility,
  ResourceMeta,
  ToolMeta,
} from './extensions/apps.js';
export { APP_MIME_TYPE, APPS_EXTENSION_ID } from './extensions/apps.js';
export type { SkillCatalogChanges, SkillFiles, SkillSource, SkillsOption } from './extensions/skills.js';
export type { TasksOptions } from './extensions/tasks.js';
export { TASKS_EXTENSION_ID } from './extensions/tasks.js';
export type { LogFields, Logger, LoggerOptions, LogLevel, LogStream } from './logger.js';
export { createLogger } from './logger.js';
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
  PlainHttpAnswer,
  PluginContext,
  ScopeChallenge,
  ServerInfo,
} from './plugins/api.js';
export type { CloseHook } from './server/close-hooks.js';
export type {
  CloseOptions,
  CreateServerOptions,
  ListenOptions,
  PierServer,
  RequestStateOptions,
  StreamableHttpListenOptions,
} from './server/create-server.js';
export { createServer } from './server/create-server.js';
export type { LifecycleListener, LifecycleState } from './server/lifecycle.js';
export type { InMemoryKeyValueStoreOptions, KeyValueStore } from './stores/kv-store.js';
export { InMemoryKeyValueStore } from './stores/kv-store.js';
export type {
  ConcurrencyLimitCheck,
  InMemoryLimitStoreOptions,
  LimitCheck,
  LimitHold,
  LimitOutcome,
  LimitStore,
  QuotaLimitCheck,
  RateLimitCheck,
} from './stores/limit-store.js';
export { InMemoryLimitStore } from './stores/limit-store.js';
export type {
  InMemoryTaskStoreOptions,
  StoredTask,
  TaskError,
  TaskRecord,
  TaskStatus,
  TaskStore,
} from './stores/task-store.js';
export { InMemoryTaskStore } from './stores/task-store.js';
export type { BusEvent, EventBus, ListenResult, PierTransport } from './transports/host.js';
export type { StdioListenOptions } from './transports/stdio.js';
