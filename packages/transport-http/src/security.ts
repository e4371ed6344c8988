import type { IncomingMessage, ServerResponse } from 'node:http';
import { localhostAllowedHostnames, validateHostHeader } from '@pier/core/transport';
import { clip, JSONRPC, sendJsonError } from './json-errors.js';
import type { OriginPattern, ResolvedHttpOptions } from './options.js';
import { authorityOf } from './routing.js';

/** Host/Origin validation (DNS rebinding protection) and CORS, decided once per server. */
export interface Security {
  /** Why the request must be refused with 403, or `undefined` when it may proceed. */
  refusal(req: IncomingMessage): string | undefined;
  /** Adds the CORS response headers when CORS is on and the request's `Origin` may read the answer. */
  applyCors(req: IncomingMessage, res: ServerResponse): void;
  /** Answers a CORS preflight for a path whose methods are `allow`; `false` when `req` is no preflight. */
  preflight(req: IncomingMessage, res: ServerResponse, allow: string): boolean;
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
    refusal(req) {
      if (checkHost) {
        const refusal = hostRefusal(req.headers.host);
        if (refusal !== undefined) return refusal;
        // An absolute-form target (`GET http://evil.example/mcp`) names the request's host itself (RFC 9112
        // §3.2.2 says it wins over Host), so it must be an allowed host as well.
        const authority = req.url === undefined ? undefined : authorityOf(req.url);
        if (authority !== undefined && authority !== '' && !authority.includes('@')) {
          if (hostRefusal(authority) !== undefined) {
            return `Forbidden: request target host "${clip(authority)}" is not allowed`;
          }
        }
      }
      if (checkOrigin) {
        const origin = req.headers.origin;
        if (origin !== undefined && origin !== '' && !originAllowed(origin)) {
          return `Forbidden: Origin "${clip(origin)}" is not allowed`;
        }
      }
      return undefined;
    },

    applyCors(req, res) {
      if (options.cors === undefined) return;
      const origin = req.headers.origin;
      if (origin === undefined) return;
      const allowed = corsAllowed(origin);
      if (allowed === undefined) return;
      res.setHeader('access-control-allow-origin', allowed);
      res.setHeader('access-control-expose-headers', exposed);
      if (allowed !== '*') res.setHeader('vary', 'Origin');
    },

    preflight(req, res, allow) {
      const origin = req.headers.origin;
      if (
        options.cors === undefined ||
        req.method !== 'OPTIONS' ||
        origin === undefined ||
        req.headers['access-control-request-method'] === undefined
      ) {
        return false;
      }
      const allowed = corsAllowed(origin);
      if (allowed === undefined) {
        sendJsonError(
          res,
          403,
          JSONRPC.serverError,
          `Forbidden: Origin "${clip(origin)}" is not allowed by CORS`,
        );
        return true;
      }
      res.writeHead(204, {
        'access-control-allow-origin': allowed,
        'access-control-allow-methods': allow,
        'access-control-allow-headers': allowedHeaders(req.headers['access-control-request-headers']),
        'access-control-max-age': String(options.cors.maxAgeSeconds),
        'access-control-expose-headers': exposed,
        vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
        'content-length': '0',
      });
      res.end();
      return true;
    },
  };
}

/** Whether `host` (a bind address or name) only accepts connections from this machine. */
export function isLoopbackAddress(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  // Not `import { isIP } from 'node:net'`: importing a built-in as an ES module reads all of its exports,
  // and node:net's include lazy ones (`BlockList`, `SocketAddress`) that then load their modules.
  const family = process.getBuiltinModule('node:net').isIP(bare);
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
