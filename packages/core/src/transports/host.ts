// The transport contract: what a transport is told about the server it serves, and what it gives back.
// Types only. Transport authors import these from `@pier/core/transport`.
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { Inbound } from '../engine/call.js';
import type { ConnectionOptions, EngineConnection } from '../engine/connection.js';
import type { Answer } from '../engine/engine.js';
import type { Logger } from '../logger.js';
import type { HttpAuthenticator, HttpRoute, ObservedStream, ServerInfo } from '../plugins/api.js';
import type { LifecycleListener, LifecycleState } from '../server/lifecycle.js';

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
   * The request engine: hand it every message the client sends, once its era is classified
   * (`classifyEra`), and write back what it answers. See {@link McpEngine}.
   */
  readonly engine: McpEngine;
  /** The server's change events (resource updates, list changes), for a transport that relays them. */
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

export type { EngineConnection };

/** What a transport hands messages to (`TransportHost.engine`). */
export interface McpEngine {
  /**
   * Handles one message (never a batch: split it): a request resolves with its answer (`undefined` only
   * when the client cancelled it on its connection), a notification or an answer to a server request
   * returns `undefined`. Never rejects.
   */
  handle(message: unknown, inbound: Inbound): Promise<Answer | undefined> | undefined;
  /**
   * What a request would be refused with before it runs (its declaration's scopes), without running it;
   * `undefined` when it may go on. For a batch: check every request first, so that a refused batch runs
   * nothing.
   */
  preflight(message: unknown, inbound: Inbound): Promise<Answer | undefined>;
  /** Opens a connection the engine keeps state for (a 2025 session, a stdio link) until it is closed. */
  connect(options: ConnectionOptions): EngineConnection;
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
