// The contracts between @pier/core and the packages around it (plugins and transports).
// Types only: nothing here pulls HTTP code into core.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CloseHook } from './close-hooks.js';
import type { PromptDeclaration, ResourceDeclaration, ToolDeclaration } from './declaration.js';
import type { HttpListenOptions } from './http-options.js';
import type { LifecycleListener, LifecycleState } from './lifecycle.js';
import type { Logger } from './logger.js';

/** An HTTP route a plugin adds; every HTTP transport serves it before its MCP endpoint. */
export interface HttpRoute {
  /** Upper-case HTTP method, such as `GET`. A `GET` route also answers `HEAD`. */
  readonly method: string;
  /** Exact path, such as `/health`; the query string is ignored when matching. */
  readonly path: string;
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
}

/** Identity of the server a plugin is attached to. */
export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

/** What HTTP transports are told about the server they serve (see `@pier/transport-http`). */
export interface TransportHost {
  readonly info: ServerInfo;
  readonly logger: Logger;
  /** Routes registered by plugins, validated: no two share a method and path. */
  readonly routes: readonly HttpRoute[];
  /** Current lifecycle state; `draining` means readiness must fail and new work is winding down. */
  readonly state: LifecycleState;
  onStateChange(listener: LifecycleListener): () => void;
  /**
   * Builds a fresh SDK server with every tool, resource and prompt registered, bound to the one
   * instance of the user's class. The SDK does not let one server serve concurrent transports,
   * so a transport asks for one per connection or per request.
   */
  createMcpServer(options?: McpServerOptions): McpServer;
  /**
   * Calls `listener(uri)` each time the server announces that a resource changed
   * (`notifyResourceUpdated`), for a transport that delivers updates to connections core does not see:
   * the HTTP transport forwards them to the 2026-07-28 `subscriptions/listen` streams of the SDK's
   * handler. Returns the function that stops it. Absent on hosts of `@pier/core` before 0.2.
   */
  onResourceUpdated?(listener: (uri: string) => void): () => void;
}

/** Options of {@link TransportHost.createMcpServer}. */
export interface McpServerOptions {
  /**
   * `false` for a server that lives for one request (stateless HTTP): it does not advertise
   * `resources.subscribe`, since no update could reach its client later (`resources/subscribe` is
   * refused with -32600 either way). Default `true`.
   */
  readonly subscriptions?: boolean;
}

/** Why a transport is being closed. */
export type CloseReason = 'close' | 'SIGTERM' | 'SIGINT';

/** Options core passes when it closes a transport. */
export interface TransportCloseOptions {
  readonly reason: CloseReason;
  /** The drain delay the user asked for in `close()`, if any; the transport picks its default otherwise. */
  readonly drainDelayMs?: number;
}

/** Where a server listens, as reported by `listen()`. For stdio, `url` is `stdio:`. */
export interface ListenResult {
  readonly transport: 'stdio' | 'streamable-http';
  readonly url: string;
  readonly host?: string;
  readonly port?: number;
}

/** A running transport, as returned to core. */
export interface RunningTransport {
  readonly address: ListenResult;
  /** Drains and closes. Resolves once nothing the transport owns keeps the process alive. */
  close(options: TransportCloseOptions): Promise<void>;
}

/** The shape `@pier/transport-http` exports for core's dynamic `import()`. */
export interface HttpTransportModule {
  startHttpTransport(host: TransportHost, options: HttpListenOptions): Promise<RunningTransport>;
}

/**
 * A plugin: a plain object with a `name` and a synchronous `setup`, run once by `createServer`.
 * What it registers through the context is validated there (duplicate names and routes are errors).
 */
export interface PierPlugin {
  readonly name: string;
  setup(ctx: PluginContext): void;
}

/** What a plugin can do while it is set up, and keep using afterwards. */
export interface PluginContext {
  /** Name and version of the server the plugin is attached to. */
  readonly server: ServerInfo;
  /** The lifecycle state now (read it when you need it: it changes). */
  readonly state: LifecycleState;
  /** Subscribe to lifecycle changes; returns the unsubscribe function. */
  onStateChange(listener: LifecycleListener): () => void;
  addTool(tool: ToolDeclaration): void;
  addResource(resource: ResourceDeclaration): void;
  addPrompt(prompt: PromptDeclaration): void;
  /** Served by HTTP transports before the MCP endpoint; not served over stdio. */
  addRoute(route: HttpRoute): void;
  /** The server's stderr logger, scoped to the plugin's name. */
  readonly logger: Logger;
  /**
   * Tells every client subscribed to `uri` that the resource changed (`notifications/resources/updated`).
   * Usable at any time, during setup and after (keep `ctx` to call it when your data changes).
   */
  notifyResourceUpdated(uri: string): Promise<void>;
  /**
   * Runs `hook` once when the server closes, after the transport stopped serving and before the state
   * turns `closed` (see `PierServer.onClose`); a failure is logged under the plugin's name. Usable
   * during setup and after, until the hooks start running. Returns the function that removes the hook.
   */
  onClose(hook: CloseHook): () => void;
}
