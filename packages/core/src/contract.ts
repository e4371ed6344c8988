// The contracts between @pier/core and the packages around it (plugins and transports).
// Types only: nothing here pulls HTTP code into core.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/server';
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
  createMcpServer(): McpServer;
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

/**
 * Options of the streamable HTTP transport. Declared in core so that `listen()` is typed without
 * importing `@pier/transport-http`; that package interprets them (defaults are documented there).
 */
export interface HttpListenOptions {
  /** Address to bind. Default `127.0.0.1`. */
  host?: string;
  /** Port; `0` picks a free one. Default `3000`. */
  port?: number;
  /** Path of the MCP endpoint. Default `/mcp`. */
  path?: string;
  /** Give 2025-era clients sessions (`Mcp-Session-Id`, GET stream, DELETE). Default `false` (stateless). */
  sessions?: boolean;
  /** Most sessions open at once; beyond it a new one gets 503. Default 10,000. */
  maxSessions?: number;
  /** An idle session is closed after this long. Default 30 minutes. */
  sessionIdleTimeoutMs?: number;
  /** Largest request body accepted; larger gets 413. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Extra `Host` names accepted besides the loopback ones. */
  allowedHosts?: readonly string[];
  /** Extra `Origin`s accepted besides the loopback ones. */
  allowedOrigins?: readonly string[];
  /** CORS: allowed origins (`'*'` for any). Off by default. */
  cors?: { readonly origins: readonly string[] | '*'; readonly maxAgeSeconds?: number };
  /** How long MCP requests are still served after draining begins. Default 5 s on SIGTERM, 0 on `close()`. */
  drainDelayMs?: number;
  /** How long in-flight requests get to finish once the listener closed. Default 10 s. */
  shutdownTimeoutMs?: number;
  /** Time allowed to receive the request headers. Default 10 s. */
  headersTimeoutMs?: number;
  /** Time allowed to receive a whole request (not applied to response streams). Default 30 s. */
  requestTimeoutMs?: number;
  /** Idle keep-alive connections are closed after this long. Default 5 s. */
  keepAliveTimeoutMs?: number;
}

/** The shape `@pier/transport-http` exports for core's dynamic `import()`. */
export interface HttpTransportModule {
  startHttpTransport(host: TransportHost, options: HttpListenOptions): Promise<RunningTransport>;
}
