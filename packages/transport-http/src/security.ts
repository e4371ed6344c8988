import { localhostAllowedHostnames, validateHostHeader } from '@pier/core/transport';
import type { HttpExchange } from './exchange.js';
import { clip, JSONRPC, sendJsonError } from './json-errors.js';
import type { OriginPattern, ResolvedHttpOptions } from './options.js';
import { authorityOf } from './routing.js';

/** Host/Origin validation (DNS rebinding protection) and CORS, decided once per server. */
export interface Security {
  /** Why the request must be refused with 403, or `undefined` when it may proceed. */
  refusal(exchange: HttpExchange): string | undefined;
  /** Adds the CORS response headers when CORS is on and the request's `Origin` may read the answer. */
  applyCors(exchange: HttpExchange): void;
  /** Answers a CORS preflight for a path whose methods are `allow`; `false` when it is no preflight. */
  preflight(exchange: HttpExchange, allow: string): boolean;
}

/** Request headers a browser may send to an MCP endpoint (any other `Mcp-*` header is allowed too). */
const CORS_ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Mcp-Method',
  'Mcp-Name',
  'Last-Event-ID',
];
/** What a browser may read; with an authenticator, its challenges too. */
const CORS_EXPOSED_HEADERS = 'Mcp-Session-Id';
const CORS_EXPOSED_WITH_AUTH = 'Mcp-Session-Id, WWW-Authenticate';
const LOOPBACK_NAMES = new Set(localhostAllowedHostnames());
/** Bounds the Host-check memo so that a flood of made-up Host values cannot grow it. */
const HOST_MEMO_LIMIT = 256;

/**
 * Builds the checks for one server. Host and Origin are validated when the server is bound to a loopback
 * address (any other Host could only come from DNS rebinding) or when allow-lists are given; CORS is off
 * unless `cors` is set.
 */
export function createSecurity(options: ResolvedHttpOptions, authenticated = false): Security {
  const exposed = authenticated ? CORS_EXPOSED_WITH_AUTH : CORS_EXPOSED_HEADERS;
  const loopback = isLoopbackAddress(options.host);
  const checkHost = loopback || options.allowedHosts.length > 0;
  const hostnames = [...LOOPBACK_NAMES, ...options.allowedHosts];
  const hostMemo = new Map<string, string | undefined>();

  const corsOrigins = options.cors === undefined || options.cors.origins === '*' ? [] : options.cors.origins;
  const checkOrigin = loopback || options.allowedOrigins.length > 0;
  const origins = new Set<string>(corsOrigins);
  const originHostnames = new Set<string>();
  for (const pattern of options.allowedOrigins) addPattern(pattern, origins, originHostnames);

  const hostRefusal = (host: string | undefined): string | undefined => {
    if (host === undefined) return 'Forbidden: missing Host header';
    if (hostMemo.has(host)) return hostMemo.get(host);
    const result = validateHostHeader(host, hostnames);
    const refusal = result.ok ? undefined : `Forbidden: Host "${clip(host)}" is not allowed`;
    if (hostMemo.size < HOST_MEMO_LIMIT) hostMemo.set(host, refusal);
    return refusal;
  };

  const originAllowed = (origin: string): boolean => {
    if (origins.has(origin)) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.origin === 'null') return false;
    if (origins.has(url.origin) || originHostnames.has(url.hostname)) return true;
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname);
  };

  const corsAllowed = (origin: string): string | undefined => {
    const cors = options.cors;
    if (cors === undefined) return undefined;
    if (cors.origins === '*') return '*';
    if (corsOrigins.includes(origin)) return origin;
    try {
      const normalized = new URL(origin).origin;
      return corsOrigins.includes(normalized) ? origin : undefined;
    } catch {
      return undefined;
    }
  };

  return {
    refusal(exchange) {
      if (checkHost) {
        const refusal = hostRefusal(exchange.header('host'));
        if (refusal !== undefined) return refusal;
        // An absolute-form target (`GET http://evil.example/mcp`) names the request's host itself (RFC 9112
        // §3.2.2 says it wins over Host), so it must be an allowed host as well.
        const authority = authorityOf(exchange.target);
        if (authority !== undefined && authority !== '' && !authority.includes('@')) {
          if (hostRefusal(authority) !== undefined) {
            return `Forbidden: request target host "${clip(authority)}" is not allowed`;
          }
        }
      }
      if (checkOrigin) {
        const origin = exchange.header('origin');
        if (origin !== undefined && origin !== '' && !originAllowed(origin)) {
          return `Forbidden: Origin "${clip(origin)}" is not allowed`;
        }
      }
      return undefined;
    },

    applyCors(exchange) {
      if (options.cors === undefined) return;
      const origin = exchange.header('origin');
      if (origin === undefined) return;
      const allowed = corsAllowed(origin);
      if (allowed === undefined) return;
      exchange.setHeader('access-control-allow-origin', allowed);
      exchange.setHeader('access-control-expose-headers', exposed);
      if (allowed !== '*') exchange.setHeader('vary', 'Origin');
    },

    preflight(exchange, allow) {
      const origin = exchange.header('origin');
      if (
        options.cors === undefined ||
        exchange.method !== 'OPTIONS' ||
        origin === undefined ||
        exchange.header('access-control-request-method') === undefined
      ) {
        return false;
      }
      const allowed = corsAllowed(origin);
      if (allowed === undefined) {
        sendJsonError(
          exchange,
          403,
          JSONRPC.serverError,
          `Forbidden: Origin "${clip(origin)}" is not allowed by CORS`,
        );
        return true;
      }
      exchange.respond(
        204,
        {
          'access-control-allow-origin': allowed,
          'access-control-allow-methods': allow,
          'access-control-allow-headers': allowedHeaders(exchange.header('access-control-request-headers')),
          'access-control-max-age': String(options.cors.maxAgeSeconds),
          'access-control-expose-headers': exposed,
          vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
          'content-length': '0',
        },
        '',
      );
      return true;
    },
  };
}

/** Whether `host` (a bind address or name) only accepts connections from this machine. */
export function isLoopbackAddress(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  const family = ipFamily(bare);
  if (family === 4) return bare.startsWith('127.');
  if (family === 6) {
    const lower = bare.toLowerCase();
    return lower === '::1' || /^(0{0,4}:){7}0{0,3}1$/.test(lower) || /^::ffff:127\./.test(lower);
  }
  return false;
}

/** The fixed list plus any requested `Mcp-*` header (such as SEP-2243's `Mcp-Param-*`). */
function allowedHeaders(requested: string | undefined): string {
  if (requested === undefined) return CORS_ALLOWED_HEADERS.join(', ');
  const known = new Set(CORS_ALLOWED_HEADERS.map((name) => name.toLowerCase()));
  const extra = requested
    .split(',')
    .map((name) => name.trim())
    .filter((name) => /^mcp-[a-z0-9-]+$/i.test(name) && !known.has(name.toLowerCase()));
  return [...CORS_ALLOWED_HEADERS, ...extra].join(', ');
}

function addPattern(pattern: OriginPattern, origins: Set<string>, hostnames: Set<string>): void {
  if ('origin' in pattern) origins.add(pattern.origin);
  else hostnames.add(pattern.hostname);
}

/**
 * 4 or 6 for an IP address, else 0: node's `isIP` where there is one (not `import { isIP } from 'node:net'`:
 * importing a built-in as an ES module reads all of its exports, and node:net's include lazy ones that
 * then load their modules), a strict pattern elsewhere (Workers).
 */
function ipFamily(address: string): number {
  const load = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule;
  const net = typeof load === 'function' ? (load('node:net') as { isIP(input: string): number }) : undefined;
  if (net !== undefined) return net.isIP(address);
  if (/^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(address)) return 4;
  return address.includes(':') && /^[0-9a-f:.]+$/i.test(address) ? 6 : 0;
}
