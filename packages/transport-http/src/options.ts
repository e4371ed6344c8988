import { describeValue, OptionIssues } from '@pier/core';
import type { EventStore } from '@pier/core/transport';

/** Node's longest timer: 2^31 − 1 ms, about 24.8 days. */
const MAX_TIMER_MS = 2_147_483_647;

import { optionsError } from './errors.js';
import type { SessionRegistry, SessionRegistryInit, SessionRelay } from './sessions.js';

/** Options of the streamable HTTP transport (`httpTransport(options)`); every default is in the README. */
export interface HttpListenOptions {
  /** Address to bind. Default `127.0.0.1`. */
  readonly host?: string;
  /** Port; `0` picks a free one. Default `3000`. */
  readonly port?: number;
  /** Path of the MCP endpoint. Default `/mcp`. */
  readonly path?: string;
  /** Give 2025-era clients sessions (`Mcp-Session-Id`, GET stream, DELETE). Default `false` (stateless). */
  readonly sessions?: boolean;
  /** Most sessions open at once; beyond it a new one gets 503. Default 10,000. */
  readonly maxSessions?: number;
  /** An idle session is closed after this long. Default 30 minutes. */
  readonly sessionIdleTimeoutMs?: number;
  /**
   * Where 2025-era sessions are kept: a factory called once with the cap, idle timeout and clock. Default:
   * Pier's in-memory registry (capped, idle-expiring). Replace it to share or observe sessions.
   */
  readonly sessionRegistry?: <T>(init: SessionRegistryInit<T>) => SessionRegistry<T>;
  /**
   * Sessionful mode only: serve a session on any replica, without load-balancer affinity. A request for a
   * session another replica opened is relayed to that replica, and `maxSessions` counts the whole fleet.
   * Default: none (a session lives on the replica that opened it; elsewhere its id gets 404). See
   * `redisSessionRelay` in `@pier/redis`.
   */
  readonly sessionRelay?: SessionRelay;
  /**
   * Sessionful mode only: keep the last events of each session's SSE streams so a client that lost its
   * stream can resume it with `Last-Event-ID` (SSE polling, SEP-1699). Off by default.
   */
  readonly resumability?: HttpResumabilityOptions;
  /** Largest request body accepted; larger gets 413. Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /** Extra `Host` names accepted besides the loopback ones. */
  readonly allowedHosts?: readonly string[];
  /** Extra `Origin`s accepted besides the loopback ones. */
  readonly allowedOrigins?: readonly string[];
  /** CORS: allowed origins (`'*'` for any). Off by default. */
  readonly cors?: HttpCorsOptions;
  /** How long MCP requests are still served after draining begins. Default 5 s on SIGTERM, 0 on `close()`. */
  readonly drainDelayMs?: number;
  /** How long in-flight requests get to finish once the listener closed. Default 10 s. */
  readonly shutdownTimeoutMs?: number;
  /** Time allowed to receive the request headers. Default 10 s. */
  readonly headersTimeoutMs?: number;
  /** Time allowed to receive a whole request (not applied to response streams). Default 30 s. */
  readonly requestTimeoutMs?: number;
  /** Idle keep-alive connections are closed after this long. Default 5 s. */
  readonly keepAliveTimeoutMs?: number;
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
  /**
   * Makes the event store of one session. Default: in memory, `maxEventsPerSession` events. Event ids
   * must identify the session's stream (the SDK passes none to `replayEventsAfter`), as Pier's do.
   */
  readonly eventStore?: (sessionId: string) => EventStore;
}

/** Defaults of every option, in one place (the README's options table is written from these). */
export const DEFAULTS = {
  host: '127.0.0.1',
  port: 3000,
  path: '/mcp',
  maxSessions: 10_000,
  sessionIdleTimeoutMs: 30 * 60_000,
  maxEventsPerSession: 1_000,
  maxBodyBytes: 4 * 1024 * 1024,
  corsMaxAgeSeconds: 600,
  drainDelayMsOnSigterm: 5_000,
  shutdownTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
} as const;

/** Options after validation, with every default filled in. */
export interface ResolvedHttpOptions {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly sessions: boolean;
  readonly maxSessions: number;
  readonly sessionIdleTimeoutMs: number;
  readonly sessionRegistry: HttpListenOptions['sessionRegistry'];
  readonly sessionRelay: SessionRelay | undefined;
  readonly resumability:
    | {
        readonly maxEventsPerSession: number;
        readonly retryMs?: number;
        readonly eventStore?: (sessionId: string) => EventStore;
      }
    | undefined;
  readonly maxBodyBytes: number;
  /** Lower-case host names (IPv6 in brackets), without ports. */
  readonly allowedHosts: readonly string[];
  /** Exact origins (`scheme://host[:port]`) and bare host names, as given. */
  readonly allowedOrigins: readonly OriginPattern[];
  readonly cors: { readonly origins: readonly string[] | '*'; readonly maxAgeSeconds: number } | undefined;
  /** `undefined`: pick by close reason (5 s on SIGTERM, else 0). */
  readonly drainDelayMs: number | undefined;
  readonly shutdownTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
}

/** An allowed origin: an exact origin, or any origin on a host name. */
export type OriginPattern = { readonly origin: string } | { readonly hostname: string };

const KNOWN_KEYS = new Set<string>([
  'transport',
  'host',
  'port',
  'path',
  'sessions',
  'maxSessions',
  'sessionIdleTimeoutMs',
  'sessionRegistry',
  'sessionRelay',
  'resumability',
  'maxBodyBytes',
  'allowedHosts',
  'allowedOrigins',
  'cors',
  'drainDelayMs',
  'shutdownTimeoutMs',
  'headersTimeoutMs',
  'requestTimeoutMs',
  'keepAliveTimeoutMs',
]);

/**
 * Validates `options` and fills in defaults. Every problem is collected into one
 * `HttpTransportError('HTTP_OPTIONS_INVALID')`; unknown keys are only warned about, since callers may pass
 * their whole listen options object.
 */
export function resolveHttpOptions(
  options: HttpListenOptions,
  warn: (message: string) => void = () => {},
): ResolvedHttpOptions {
  const issues = new OptionIssues('streamable-http');
  if (options === null || typeof options !== 'object') {
    const issues = new OptionIssues('streamable-http');
    issues.add('options must be an object');
    issues.throwNow(optionsError);
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_KEYS.has(key)) warn(`streamable-http: unknown option "${key}" is ignored`);
  }
  const int = (name: string, value: unknown, fallback: number, min: number, max = MAX_TIMER_MS): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      issues.add(`${name} must be an integer from ${min} to ${max}, got ${describeValue(value)}`);
      return fallback;
    }
    return value;
  };

  const host = options.host ?? DEFAULTS.host;
  if (typeof host !== 'string' || host.trim() === '' || /\s/.test(host)) {
    issues.add(`host must be a non-empty address without spaces, got ${describeValue(options.host)}`);
  }
  const path = options.path ?? DEFAULTS.path;
  if (typeof path !== 'string' || !/^\/[^?#\s]*$/.test(path) || path.length > 1024) {
    issues.add(`path must start with "/" and hold no "?", "#" or spaces, got ${describeValue(options.path)}`);
  }
  if (options.sessions !== undefined && typeof options.sessions !== 'boolean') {
    issues.add(`sessions must be true or false, got ${describeValue(options.sessions)}`);
  }
  const headersTimeoutMs = int('headersTimeoutMs', options.headersTimeoutMs, DEFAULTS.headersTimeoutMs, 1);
  const requestTimeoutMs = int('requestTimeoutMs', options.requestTimeoutMs, DEFAULTS.requestTimeoutMs, 1);
  if (headersTimeoutMs > requestTimeoutMs) {
    issues.add(
      `headersTimeoutMs (${headersTimeoutMs}) must not exceed requestTimeoutMs (${requestTimeoutMs})`,
    );
  }

  const resolved: ResolvedHttpOptions = {
    host: typeof host === 'string' ? host : DEFAULTS.host,
    port: int('port', options.port, DEFAULTS.port, 0, 65_535),
    path: typeof path === 'string' ? path : DEFAULTS.path,
    sessions: options.sessions === true,
    maxSessions: int('maxSessions', options.maxSessions, DEFAULTS.maxSessions, 1, 10_000_000),
    sessionIdleTimeoutMs: int(
      'sessionIdleTimeoutMs',
      options.sessionIdleTimeoutMs,
      DEFAULTS.sessionIdleTimeoutMs,
      1,
    ),
    sessionRegistry: resolveFunction(options.sessionRegistry, 'sessionRegistry', issues),
    sessionRelay: resolveRelay(options.sessionRelay, issues),
    resumability: resolveResumability(options.resumability, issues, int),
    maxBodyBytes: int('maxBodyBytes', options.maxBodyBytes, DEFAULTS.maxBodyBytes, 1, 2 ** 30),
    allowedHosts: list(options.allowedHosts, 'allowedHosts', issues).flatMap((entry) => {
      const hostname = hostnameOf(entry);
      if (hostname === undefined) issues.add(`allowedHosts: "${entry}" is not a host name`);
      return hostname === undefined ? [] : [hostname];
    }),
    allowedOrigins: list(options.allowedOrigins, 'allowedOrigins', issues).flatMap((entry) => {
      const pattern = originPatternOf(entry);
      if (pattern === undefined)
        issues.add(`allowedOrigins: "${entry}" is neither an origin nor a host name`);
      return pattern === undefined ? [] : [pattern];
    }),
    cors: resolveCors(options.cors, issues, int),
    drainDelayMs:
      options.drainDelayMs === undefined ? undefined : int('drainDelayMs', options.drainDelayMs, 0, 0),
    shutdownTimeoutMs: int('shutdownTimeoutMs', options.shutdownTimeoutMs, DEFAULTS.shutdownTimeoutMs, 0),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: int('keepAliveTimeoutMs', options.keepAliveTimeoutMs, DEFAULTS.keepAliveTimeoutMs, 0),
  };
  if (options.resumability !== undefined && !resolved.sessions) {
    warn('streamable-http: resumability only applies with sessions: true; it is ignored');
  }
  if (options.sessionRelay !== undefined && !resolved.sessions) {
    warn('streamable-http: sessionRelay only applies with sessions: true; it is ignored');
  }
  issues.throwIfAny(optionsError);
  return resolved;
}

type IntReader = (name: string, value: unknown, fallback: number, min: number, max?: number) => number;

function resolveResumability(
  value: HttpListenOptions['resumability'],
  issues: OptionIssues,
  int: IntReader,
): ResolvedHttpOptions['resumability'] {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object') {
    issues.add(`resumability must be an object, got ${describeValue(value)}`);
    return undefined;
  }
  const maxEventsPerSession = int(
    'resumability.maxEventsPerSession',
    value.maxEventsPerSession,
    DEFAULTS.maxEventsPerSession,
    1,
    1_000_000,
  );
  const eventStore = resolveFunction(value.eventStore, 'resumability.eventStore', issues);
  return {
    maxEventsPerSession,
    ...(value.retryMs !== undefined && { retryMs: int('resumability.retryMs', value.retryMs, 0, 0) }),
    ...(eventStore !== undefined && { eventStore }),
  };
}

function resolveRelay(value: SessionRelay | undefined, issues: OptionIssues): SessionRelay | undefined {
  if (value === undefined) return undefined;
  const methods = ['claim', 'touch', 'release', 'relay'] as const;
  if (
    value === null ||
    typeof value !== 'object' ||
    !methods.every((name) => typeof (value as unknown as Record<string, unknown>)[name] === 'function')
  ) {
    issues.add(
      `sessionRelay must be an object with ${methods.join(', ')} methods, got ${describeValue(value)}`,
    );
    return undefined;
  }
  return value;
}

function resolveFunction<F>(value: F | undefined, name: string, issues: OptionIssues): F | undefined {
  if (value !== undefined && typeof value !== 'function') {
    issues.add(`${name} must be a function, got ${describeValue(value)}`);
    return undefined;
  }
  return value;
}

function resolveCors(
  value: HttpListenOptions['cors'],
  issues: OptionIssues,
  int: IntReader,
): ResolvedHttpOptions['cors'] {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object') {
    issues.add(`cors must be an object such as { origins: ['https://app.example.com'] }`);
    return undefined;
  }
  const maxAgeSeconds = int('cors.maxAgeSeconds', value.maxAgeSeconds, DEFAULTS.corsMaxAgeSeconds, 0, 86_400);
  if (value.origins === '*') return { origins: '*', maxAgeSeconds };
  const origins = list(value.origins, 'cors.origins', issues).flatMap((entry) => {
    const pattern = originPatternOf(entry);
    if (pattern === undefined || !('origin' in pattern)) {
      issues.add(`cors.origins: "${entry}" is not an origin such as https://app.example.com`);
      return [];
    }
    return [pattern.origin];
  });
  return { origins, maxAgeSeconds };
}

function list(value: unknown, name: string, issues: OptionIssues): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string' && entry !== '')) {
    issues.add(`${name} must be a list of non-empty strings`);
    return [];
  }
  return value as string[];
}

/** `Example.COM:8080` → `example.com`; `[::1]:3000` → `[::1]`; `undefined` when it is no host name. */
export function hostnameOf(value: string): string | undefined {
  if (/[/?#@\s]/.test(value)) return undefined;
  try {
    const { hostname } = new URL(`http://${value}`);
    return hostname === '' ? undefined : hostname;
  } catch {
    return undefined;
  }
}

/** `https://App.example.com/` → exact origin; `app.example.com` → any origin on that host name. */
export function originPatternOf(value: string): OriginPattern | undefined {
  if (!value.includes('://')) {
    const hostname = hostnameOf(value);
    return hostname === undefined ? undefined : { hostname };
  }
  try {
    const url = new URL(value);
    if (url.origin === 'null' || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
      return undefined;
    }
    return { origin: url.origin };
  } catch {
    return undefined;
  }
}
