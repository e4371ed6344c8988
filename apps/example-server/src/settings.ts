// Fixed values of the example app, in one module without side effects, so that tests (and the README
// check) import the real numbers instead of repeating them.

/** The server's name, sent to clients and used as the log scope. */
export const SERVER_NAME = 'pier-notes';
/** The server's version, sent to clients and shown by `/health`. */
export const SERVER_VERSION = '1.0.0';

/** `PORT` / `--port` when neither is given. */
export const DEFAULT_PORT = 3000;
/** `HOST` / `--host` when neither is given: loopback, as the transport's own default. */
export const DEFAULT_HOST = '127.0.0.1';
/** `BASE_URL` / `--base-url` when neither is given: the upstream the non-critical health check calls. */
export const DEFAULT_BASE_URL = 'https://api.example.com';
/** `TIMEOUT` / `--timeout` when neither is given, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 5_000;
/** `MAX_RETRIES` / `--max-retries` when neither is given. */
export const DEFAULT_MAX_RETRIES = 3;

/**
 * `DRAIN_DELAY_MS` / `--drain-delay-ms` when neither is given: after SIGTERM, readiness fails at once
 * but MCP requests are still served this long, so that Kubernetes can take the pod out of its endpoints
 * before the listener closes. The transport's own SIGTERM default, passed explicitly.
 */
export const DEFAULT_DRAIN_DELAY_MS = 5_000;
/** How long requests in flight get to finish once the listener closed (the transport's default). */
export const SHUTDOWN_TIMEOUT_MS = 10_000;
/** How long flushing the notes may take on shutdown, after the requests finished (`closeHookTimeoutMs`). */
export const FLUSH_TIMEOUT_MS = 5_000;

/** Where the MCP endpoint and the health endpoints are served over HTTP. */
export const MCP_PATH = '/mcp';
export const HEALTH_PATHS = {
  health: '/health',
  live: '/health/live',
  ready: '/health/ready',
} as const;

/** The directory under the user's data directory that holds the notes by default. */
export const DATA_DIR_NAME = 'pier-notes';
