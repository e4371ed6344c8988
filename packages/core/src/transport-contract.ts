// The transport contract: what a transport is told about the server it serves, and what it gives back.
// Types only. Transport authors import these from `@pier/core/transport`.
import type { AuthInfo, McpServer, ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { HttpAuthenticator, HttpRoute, ObservedStream, ServerInfo } from './contract.js';
import type { LifecycleListener, LifecycleState } from './lifecycle.js';
import type { Logger } from './logger.js';

/**
 * Carries change events (`resource_updated`, `*_list_changed`) from whoever raises them to every open
 * connection that should hear them: the SDK's `ServerEventBus`, two methods, plus an optional `flush`.
 * Pier's default lives in memory; a multi-replica deployment passes one backed by a shared broker
 * (`@pier/redis`) to `createServer(…, { eventBus })`. `publish` must not throw, and must not echo an event
 * back to the listener that published it from inside that listener.
 */
export interface EventBus extends ServerEventBus {
  /**
   * Optional. Resolves once every event published so far has left this process (written to the broker's
   * connection; not necessarily acknowledged), or at once when it cannot leave now (the broker is away and
   * the bus keeps it queued). Never rejects. `notifyResourceUpdated` and the list-changed notifications
   * wait for it, so a tool that awaits them answers after its event is on its way to the other replicas.
   */
  flush?(): Promise<void>;
}

/** An event on the {@link EventBus}. */
export type BusEvent = ServerEvent;

/** What a transport is told about the server it serves. */
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
  createMcpServer(options?: SdkServerOptions): McpServer;
  /**
   * The direct path for stateless `tools/call` (see {@link DirectToolCalls}); `undefined` when the server
   * has extensions, task tools or no tool it can serve that way. Observers see its calls as they see the
   * SDK servers' (see {@link DirectCallRequest}).
   */
  readonly directToolCalls?: DirectToolCalls | undefined;
  /**
   * The server's change events. An HTTP transport hands it to the SDK's handler (`createMcpHandler`'s
   * `bus`), so that 2026-07-28 `subscriptions/listen` streams hear every change; 2025-era connections
   * built by {@link createMcpServer} hear it through core.
   */
  readonly events: EventBus;
  /** The authenticator a plugin set (`PluginContext.setAuthenticator`), if any: HTTP transports run it. */
  readonly authenticator: HttpAuthenticator | undefined;
  /**
   * Reports a long-lived stream the transport opened (a `subscriptions/listen` stream, a 2025 session's
   * GET stream) to the observers plugins registered; call the returned function once when it closes.
   * Absent when no observer wants streams, so a transport pays nothing then: call it as `reportStream?.()`.
   */
  readonly reportStream?: (stream: ObservedStream) => () => void;
}

/** Options of {@link TransportHost.createMcpServer}. */
export interface SdkServerOptions {
  /**
   * `false` for a server that lives for one request (stateless HTTP): it does not advertise
   * `resources.subscribe`, since no update could reach its client later (`resources/subscribe` is
   * refused with -32600 either way). Default `true`.
   */
  readonly subscriptions?: boolean;
  /** The protocol era the server will serve, when the transport knows it (told to plugin extensions). */
  readonly era?: 'modern' | 'legacy';
  /**
   * `request` for a server that answers one request and is closed (HTTP): core does not track it for change
   * events, which the SDK's HTTP handler delivers from {@link TransportHost.events} itself. Default
   * `connection`: a server that outlives requests (stdio, an HTTP session) and hears every change.
   */
  readonly lifetime?: 'request' | 'connection';
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
  readonly transport: 'stdio' | 'streamable-http' | (string & {});
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

/**
 * A transport `listen()` can start: what `httpTransport(options)` of `@pier/transport-http` returns, or
 * your own. Its options are validated when it is made, so a bad option fails before anything listens.
 */
export interface PierTransport {
  /** Short name for logs and errors, such as `streamable-http`. */
  readonly name: string;
  start(host: TransportHost): Promise<RunningTransport>;
}

/**
 * Serves a stateless `tools/call` without an SDK server, for a transport that has already checked
 * everything the SDK checks before its tool dispatch (JSON-RPC shape, era, envelope, headers) and found
 * an everyday call: params `name` and `arguments` only (2025), plus the three envelope keys (2026-07-28).
 * Only tools that cannot see their context (a handler declaring one parameter), with an input schema
 * and no output schema, scopes or task mode are served.
 */
export interface DirectToolCalls {
  /**
   * `undefined` when the SDK must serve the call (an unknown or unsuited tool, arguments its schema
   * refuses: the SDK writes that answer). Otherwise the tool has run, once: the outcome is the `result`
   * to write as `{"result":…,"jsonrpc":"2.0","id":…}` with status 200, or a result only the SDK can
   * project — then call {@link replay} with the web request the SDK will see as `ctx.http.req` and serve
   * the call through the SDK, which answers with that result instead of running the tool again.
   */
  call(
    name: string,
    args: unknown,
    era: 'modern' | 'legacy',
    request?: DirectCallRequest,
  ): Promise<DirectCallOutcome> | undefined;
  replay(request: object, result: unknown): void;
}

/**
 * The request a direct call answers, as the SDK server would have received it: what observers
 * (`PluginContext.observe`) are told. Without it, a server with observers leaves the call to the SDK
 * (`call` answers `undefined`), so a caller that cannot tell it loses no observation.
 */
export interface DirectCallRequest {
  /** The JSON-RPC request id. */
  readonly id: string | number;
  /** The request's `params`, as the client sent them (`name`, `arguments`, `_meta`). */
  readonly params: Readonly<Record<string, unknown>>;
  /**
   * The web request the SDK would see as `ctx.http.req` (observers read its `headers`); pass the same
   * object to {@link DirectToolCalls.replay} when the SDK writes the result.
   */
  readonly request: Request;
  /** Who is calling, when an authenticator ran. */
  readonly authInfo?: AuthInfo | undefined;
  /**
   * The connection-long SDK server this call belongs to (a 2025 session's), if any: observers see the
   * call in that session, as they see the session's other requests. Absent for a stateless call.
   */
  readonly server?: McpServer | undefined;
}

/** What {@link DirectToolCalls.call} resolves with. */
export type DirectCallOutcome =
  | { readonly result: Readonly<Record<string, unknown>> }
  | { readonly replay: unknown };
