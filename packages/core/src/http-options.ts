// Owned by @pier/transport-http's maintainers: the options `listen({ transport: 'streamable-http' })` takes.
// Declared in core (types only) so that `listen()` is typed without importing the transport.

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
  /**
   * Sessionful mode only: keep the last events of each session's SSE streams in memory so a client that
   * lost its stream can resume it with `Last-Event-ID` (SSE polling, SEP-1699). Off by default.
   */
  resumability?: HttpResumabilityOptions;
  /** Largest request body accepted; larger gets 413. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Extra `Host` names accepted besides the loopback ones. */
  allowedHosts?: readonly string[];
  /** Extra `Origin`s accepted besides the loopback ones. */
  allowedOrigins?: readonly string[];
  /** CORS: allowed origins (`'*'` for any). Off by default. */
  cors?: HttpCorsOptions;
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

/** CORS settings of the streamable HTTP transport. */
export interface HttpCorsOptions {
  /** Origins allowed to read responses, such as `https://app.example.com`; `'*'` allows any. */
  readonly origins: readonly string[] | '*';
  /** How long a browser may cache a preflight answer. Default 600 s. */
  readonly maxAgeSeconds?: number;
}

/** Resumable SSE streams in sessionful mode (SEP-1699). */
export interface HttpResumabilityOptions {
  /** Events kept per session for replay; older ones are dropped. Default 1,000. */
  readonly maxEventsPerSession?: number;
  /** Reconnection delay suggested to clients in the SSE `retry` field. Default: none sent. */
  readonly retryMs?: number;
}
