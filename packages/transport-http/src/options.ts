import type { HttpListenOptions } from '@pier/core';
import { HttpTransportError } from './errors.js';

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

/** The longest delay a Node.js timer accepts. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Options after validation, with every default filled in. */
export interface ResolvedHttpOptions {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly sessions: boolean;
  readonly maxSessions: number;
  readonly sessionIdleTimeoutMs: number;
  readonly resumability: { readonly maxEventsPerSession: number; readonly retryMs?: number } | undefined;
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
  const issues: string[] = [];
  if (options === null || typeof options !== 'object') {
    throw new HttpTransportError('HTTP_OPTIONS_INVALID', ['options must be an object']);
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_KEYS.has(key)) warn(`streamable-http: unknown option "${key}" is ignored`);
  }
  const int = (name: string, value: unknown, fallback: number, min: number, max = MAX_TIMER_MS): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      issues.push(`${name} must be an integer from ${min} to ${max}, got ${describe(value)}`);
      return fallback;
    }
    return value;
  };

  const host = options.host ?? DEFAULTS.host;
  if (typeof host !== 'string' || host.trim() === '' || /\s/.test(host)) {
    issues.push(`host must be a non-empty address without spaces, got ${describe(options.host)}`);
  }
  const path = options.path ?? DEFAULTS.path;
  if (typeof path !== 'string' || !/^\/[^?#\s]*$/.test(path) || path.length > 1024) {
    issues.push(`path must start with "/" and hold no "?", "#" or spaces, got ${describe(options.path)}`);
  }
  if (options.sessions !== undefined && typeof options.sessions !== 'boolean') {
    issues.push(`sessions must be true or false, got ${describe(options.sessions)}`);
  }
  const headersTimeoutMs = int('headersTimeoutMs', options.headersTimeoutMs, DEFAULTS.headersTimeoutMs, 1);
  const requestTimeoutMs = int('requestTimeoutMs', options.requestTimeoutMs, DEFAULTS.requestTimeoutMs, 1);
  if (headersTimeoutMs > requestTimeoutMs) {
    issues.push(
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
    resumability: resolveResumability(options.resumability, issues, int),
    maxBodyBytes: int('maxBodyBytes', options.maxBodyBytes, DEFAULTS.maxBodyBytes, 1, 2 ** 30),
    allowedHosts: list(options.allowedHosts, 'allowedHosts', issues).flatMap((entry) => {
      const hostname = hostnameOf(entry);
      if (hostname === undefined) issues.push(`allowedHosts: "${entry}" is not a host name`);
      return hostname === undefined ? [] : [hostname];
    }),
    allowedOrigins: list(options.allowedOrigins, 'allowedOrigins', issues).flatMap((entry) => {
      const pattern = originPatternOf(entry);
      if (pattern === undefined)
        issues.push(`allowedOrigins: "${entry}" is neither an origin nor a host name`);
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
  if (issues.length > 0) throw new HttpTransportError('HTTP_OPTIONS_INVALID', issues);
  return resolved;
}

type IntReader = (name: string, value: unknown, fallback: number, min: number, max?: number) => number;

function resolveResumability(
  value: HttpListenOptions['resumability'],
  issues: string[],
  int: IntReader,
): ResolvedHttpOptions['resumability'] {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object') {
    issues.push(`resumability must be an object, got ${describe(value)}`);
    return undefined;
  }
  const maxEventsPerSession = int(
    'resumability.maxEventsPerSession',
    value.maxEventsPerSession,
    DEFAULTS.maxEventsPerSession,
    1,
    1_000_000,
  );
  if (value.retryMs === undefined) return { maxEventsPerSession };
  return { maxEventsPerSession, retryMs: int('resumability.retryMs', value.retryMs, 0, 0) };
}

function resolveCors(
  value: HttpListenOptions['cors'],
  issues: string[],
  int: IntReader,
): ResolvedHttpOptions['cors'] {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object') {
    issues.push(`cors must be an object such as { origins: ['https://app.example.com'] }`);
    return undefined;
  }
  const maxAgeSeconds = int('cors.maxAgeSeconds', value.maxAgeSeconds, DEFAULTS.corsMaxAgeSeconds, 0, 86_400);
  if (value.origins === '*') return { origins: '*', maxAgeSeconds };
  const origins = list(value.origins, 'cors.origins', issues).flatMap((entry) => {
    const pattern = originPatternOf(entry);
    if (pattern === undefined || !('origin' in pattern)) {
      issues.push(`cors.origins: "${entry}" is not an origin such as https://app.example.com`);
      return [];
    }
    return [pattern.origin];
  });
  return { origins, maxAgeSeconds };
}

function list(value: unknown, name: string, issues: string[]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string' && entry !== '')) {
    issues.push(`${name} must be a list of non-empty strings`);
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

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}
