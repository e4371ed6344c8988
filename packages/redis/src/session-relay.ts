// 2025-era sessions on any replica: the replica that answered `initialize` owns the session and records
// itself in Redis; any other replica forwards the session's requests (POST, the GET stream, DELETE, the
// client's answers to server-to-client requests) to the owner over HTTP and streams the answer back.
import { createHash, randomUUID } from 'node:crypto';
import type * as NodeHttp from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type * as NodeHttps from 'node:https';
import { createRedisClient, type RedisConnectionLike } from './client.js';
import { messageOf, PierRedisError } from './errors.js';
import { RedisOptionChecks } from './option-checks.js';

// Not ES imports: on Node 24 `import … from 'node:http'` builds the builtin's ES facade, which reads its lazy
// `WebSocket` export and so loads undici (with tls, http2 and zlib): about 450 M instructions at start.
// node:https (tls) loads only when an owner is reached over https.
const nodeHttp = () => process.getBuiltinModule('node:http') as typeof NodeHttp;
const nodeHttps = () => process.getBuiltinModule('node:https') as typeof NodeHttps;

/**
 * What the session relay calls on a Redis client: `createClient()` of `@redis/client` v6 satisfies it, and
 * an ioredis/iovalkey user can pass a small adapter.
 */
export interface RedisSessionClientLike extends RedisConnectionLike {
  get(key: string): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Options of {@link redisSessionRelay}. Give `url` or `client`. */
export interface RedisSessionRelayOptions {
  /** `redis://[user:password@]host:port[/db]`: the relay makes (and closes) its own client. */
  readonly url?: string;
  /** A node-redis v6 client (or adapter), connected or not. The relay never closes it. */
  readonly client?: RedisSessionClientLike;
  /** Prefix of every key. Replicas of one server share it. Default `pier:session:`. */
  readonly prefix?: string;
  /**
   * Where the other replicas reach this one's MCP endpoint, such as `http://10.0.3.7:3000/mcp` (in
   * Kubernetes, the pod IP). Default: the listener's own URL, which is right on one host and wrong when
   * the listener binds `0.0.0.0` or `::` (then this option is required).
   */
  readonly advertiseUrl?: string;
  /**
   * How long a session record outlives its owner: the owner rewrites the records of its sessions every
   * third of it, so the sessions of a replica that died leave the fleet count within this time. Default 30 s.
   */
  readonly recordTtlMs?: number;
  /** How long a relaying replica waits to connect to the owner before answering 404. Default 2,000 ms. */
  readonly connectTimeoutMs?: number;
  /** This replica's id in the records. Default: a random UUID. */
  readonly nodeId?: string;
  /** Errors the relay cannot throw (a failed refresh or release), each a {@link PierRedisError}. */
  readonly onerror?: (error: PierRedisError) => void;
}

/**
 * The relay: pass it to `httpTransport({ sessions: true, sessionRelay })` on every replica. It has the
 * transport's `SessionRelay` methods (typed structurally: `@pier/redis` does not depend on the transport).
 */
export interface RedisSessionRelay {
  readonly nodeId: string;
  /** Resolves once the client is connected. Never rejects. */
  readonly ready: Promise<void>;
  /** Sessions this replica owns. */
  readonly owned: number;
  claim(id: string, claim: SessionClaimLike): Promise<boolean>;
  touch(id: string): void;
  release(id: string): void;
  relay(request: RelayedRequestLike): Promise<boolean>;
  /** Stops refreshing, waits for pending writes and closes the client it made. Close the server first. */
  close(): Promise<void>;
}

/** The transport's `SessionClaim`. */
export interface SessionClaimLike {
  readonly principal: string | undefined;
  readonly endpoint: string;
  readonly maxSessions: number;
  readonly idleTimeoutMs: number;
}

/** The transport's `RelayedRequest`. */
export interface RelayedRequestLike {
  readonly sessionId: string;
  readonly principal: string | undefined;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly body: unknown;
}

/** What a session record holds (JSON in Redis). */
interface SessionRecord {
  /** The owner's endpoint. */
  readonly e: string;
  /** The owner's node id. */
  readonly n: string;
  /** SHA-256 of the principal ('' for none): the principal itself never goes to Redis. */
  readonly p: string;
}

// Redis's own clock decides expiry, so that replicas' clocks need not agree.
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: index, record. ARGV: ttl, max, record, id. 1 = claimed, 0 = the fleet is full. */
const CLAIM = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[4])
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[1])
return 1`;

/** KEYS: index, then records. ARGV: ttl, then (id, record) pairs: rewrites the owner's records. */
const REFRESH = `${NOW}
for i = 2, #KEYS do
  redis.call('SET', KEYS[i], ARGV[2 * i - 1], 'PX', ARGV[1])
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2 * i - 2])
end
return #KEYS - 1`;

/** KEYS: index, record. ARGV: id, expected record ('' = any). Deletes it if it is still the expected one. */
const RELEASE = `if ARGV[2] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1`;

/** Headers that belong to one connection, never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
]);
const CACHE_SIZE = 10_000;
const CACHE_MS = 30_000;
const REFRESH_BATCH = 500;

/**
 * Makes the session relay. Pass the same options to every replica (but each its own `advertiseUrl`):
 *
 * @example
 * ```ts
 * const relay = redisSessionRelay({ url: process.env.REDIS_URL, advertiseUrl: `http://${process.env.POD_IP}:3000/mcp` });
 * await server.listen(httpTransport({ host: '0.0.0.0', sessions: true, sessionRelay: relay }));
 * // on shutdown: await server.close(); await relay.close();
 * ```
 */
export function redisSessionRelay(options: RedisSessionRelayOptions): RedisSessionRelay {
  return new SessionRelay(resolveOptions(options));
}

type Resolved = Required<
  Pick<RedisSessionRelayOptions, 'prefix' | 'recordTtlMs' | 'connectTimeoutMs' | 'nodeId'>
> &
  Pick<RedisSessionRelayOptions, 'url' | 'client' | 'advertiseUrl' | 'onerror'>;

class SessionRelay implements RedisSessionRelay {
  readonly nodeId: string;
  readonly ready: Promise<void>;
  readonly #options: Resolved;
  readonly #index: string;
  /** Sessions this replica owns: id → record JSON, rewritten every third of the record TTL. */
  readonly #owned = new Map<string, string>();
  /** Records of other replicas' sessions seen lately (an owner never changes; it answers 404 once a session is gone). */
  readonly #cache = new Map<string, { record: SessionRecord; raw: string; until: number }>();
  readonly #pending = new Set<Promise<unknown>>();
  // Idle kept-alive connections to owners close after 2 s, before an owner's own keep-alive timeout (5 s
  // by default) can close them under a request being sent.
  readonly #http: NodeHttp.Agent = new (nodeHttp().Agent)({ keepAlive: true, timeout: 2_000 });
  #https: NodeHttps.Agent | undefined;
  #client: RedisSessionClientLike | undefined;
  #ownsClient = false;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #warned = false;

  #httpsAgent(): NodeHttps.Agent {
    this.#https ??= new (nodeHttps().Agent)({ keepAlive: true, timeout: 2_000 });
    return this.#https;
  }

  constructor(options: Resolved) {
    this.#options = options;
    this.nodeId = options.nodeId;
    this.#index = `${options.prefix}index`;
    this.ready = this.#start();
  }

  get owned(): number {
    return this.#owned.size;
  }

  async claim(id: string, claim: SessionClaimLike): Promise<boolean> {
    const client = await this.#connected();
    if (
      this.#options.advertiseUrl === undefined &&
      !this.#warned &&
      /^https?:\/\/(0\.0\.0\.0|\[::\])[:/]/.test(claim.endpoint)
    ) {
      this.#warned = true;
      this.#report(
        new PierRedisError(
          'REDIS_OPTIONS_INVALID',
          'the listener binds every interface: set advertiseUrl, the address other replicas reach this one at',
        ),
        '',
      );
    }
    const raw = JSON.stringify({
      e: this.#options.advertiseUrl ?? claim.endpoint,
      n: this.nodeId,
      p: principalHash(claim.principal),
    } satisfies SessionRecord);
    const claimed = await client.eval(CLAIM, {
      keys: [this.#index, this.#key(id)],
      arguments: [String(this.#options.recordTtlMs), String(claim.maxSessions), raw, id],
    });
    if (Number(claimed) !== 1) return false;
    this.#owned.set(id, raw);
    return true;
  }

  /** Nothing to write: the owner rewrites its records every third of `recordTtlMs` while it holds them. */
  touch(_id: string): void {}

  release(id: string): void {
    if (!this.#owned.delete(id)) return;
    this.#track(this.#release(id, ''), 'releasing a session');
  }

  async relay({ sessionId, principal, req, res, body }: RelayedRequestLike): Promise<boolean> {
    if (this.#closed) return false;
    const found = await this.#lookup(sessionId);
    // Another principal's session is as unknown as a missing one; our own id here means we lost it.
    if (
      found === undefined ||
      found.record.p !== principalHash(principal) ||
      found.record.n === this.nodeId
    ) {
      return false;
    }
    const outcome = await this.#forward(found.record.e, req, res, body, false);
    if (outcome === 'unreachable') {
      // The owner is gone: so is the session. Its next client request starts over (404, re-initialize).
      this.#cache.delete(sessionId);
      this.#track(this.#release(sessionId, found.raw), 'forgetting a session whose owner is gone');
      return false;
    }
    if (outcome === 404) this.#cache.delete(sessionId);
    return true;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    for (const id of [...this.#owned.keys()]) this.release(id);
    await Promise.allSettled([...this.#pending]);
    this.#http.destroy();
    this.#https?.destroy();
    const client = this.#client;
    if (this.#ownsClient && client !== undefined) {
      await Promise.resolve(client.isOpen ? client.close() : undefined).catch(() => client.destroy());
    }
  }

  async #start(): Promise<void> {
    try {
      if (this.#options.client !== undefined) {
        this.#client = this.#options.client;
      } else {
        this.#client = (await createRedisClient(
          this.#options.url as string,
        )) as unknown as RedisSessionClientLike;
        this.#ownsClient = true;
      }
      // Without an 'error' listener node-redis crashes the process on a connection error.
      this.#client.on('error', () => {});
      if (!this.#client.isOpen) await this.#client.connect();
    } catch (error) {
      this.#report(error, 'connecting to Redis');
    }
    const every = Math.max(Math.floor(this.#options.recordTtlMs / 3), 100);
    this.#timer = setInterval(() => this.#track(this.#refresh(), 'refreshing session records'), every);
    this.#timer.unref();
  }

  async #connected(): Promise<RedisSessionClientLike> {
    await this.ready;
    // Not refused once closing began: `close()` waits for the releases still being written.
    if (this.#client === undefined || (this.#closed && this.#pending.size === 0)) {
      throw new PierRedisError('REDIS_SESSIONS_FAILED', 'the session relay has no Redis connection');
    }
    return this.#client;
  }

  #key(id: string): string {
    return `${this.#options.prefix}s:${id}`;
  }

  async #lookup(id: string): Promise<{ record: SessionRecord; raw: string } | undefined> {
    const now = performance.now();
    const cached = this.#cache.get(id);
    if (cached !== undefined && cached.until > now) return cached;
    const client = await this.#connected();
    const raw = await client.get(this.#key(id));
    if (typeof raw !== 'string') return undefined;
    let record: SessionRecord;
    try {
      record = JSON.parse(raw) as SessionRecord;
    } catch {
      return undefined;
    }
    if (this.#cache.size >= CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value as string);
    const entry = { record, raw, until: now + CACHE_MS };
    this.#cache.set(id, entry);
    return entry;
  }

  async #release(id: string, expected: string): Promise<void> {
    const client = await this.#connected();
    await client.eval(RELEASE, { keys: [this.#index, this.#key(id)], arguments: [id, expected] });
  }

  /** Rewrites the records of every owned session (in batches): alive while held, back after a Redis restart. */
  async #refresh(): Promise<void> {
    if (this.#owned.size === 0 || this.#client?.isReady !== true) return;
    const client = this.#client;
    const entries = [...this.#owned];
    for (let start = 0; start < entries.length; start += REFRESH_BATCH) {
      const batch = entries.slice(start, start + REFRESH_BATCH);
      await client.eval(REFRESH, {
        keys: [this.#index, ...batch.map(([id]) => this.#key(id))],
        arguments: [String(this.#options.recordTtlMs), ...batch.flat()],
      });
    }
  }

  /**
   * Forwards the request to the owner and pipes its answer back. Resolves with the owner's status once the
   * answer started, or `'unreachable'` when the owner could not be reached (nothing sent to the client).
   */
  #forward(
    endpoint: string,
    req: IncomingMessage,
    res: RelayedRequestLike['res'],
    body: unknown,
    retried: boolean,
  ): Promise<number | 'unreachable'> {
    const target = new URL(endpoint);
    // Strings, not buffers: Node then writes headers and body in one piece (one syscall, not a writev).
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers['x-pier-relayed'] = this.nodeId;
    if (payload !== undefined) headers['content-length'] = Buffer.byteLength(payload);
    const secure = target.protocol === 'https:';
    return new Promise((resolve) => {
      let settled = false;
      const upstream = (secure ? nodeHttps().request : nodeHttp().request)({
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers,
        agent: secure ? this.#httpsAgent() : this.#http,
      });
      let connectTimer: NodeJS.Timeout | undefined;
      upstream.once('socket', (socket) => {
        if (!socket.connecting) return;
        connectTimer = setTimeout(
          () => upstream.destroy(new Error('connecting to the owner timed out')),
          this.#options.connectTimeoutMs,
        );
        socket.once('connect', () => clearTimeout(connectTimer));
      });
      upstream.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(connectTimer);
        if (settled) {
          res.destroy();
          return;
        }
        settled = true;
        // A kept-alive connection the owner had just closed: the request never reached it, try once more.
        if (upstream.reusedSocket && error.code === 'ECONNRESET' && !retried && !res.destroyed) {
          resolve(this.#forward(endpoint, req, res, body, true));
          return;
        }
        resolve('unreachable');
      });
      upstream.once('response', (answer) => {
        clearTimeout(connectTimer);
        settled = true;
        const out: OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
        }
        const status = answer.statusCode ?? 502;
        answer.once('end', () => {
          finished = true;
        });
        if (String(answer.headers['content-type']).startsWith('text/event-stream')) {
          res.writeHead(status, out);
          // An SSE stream must reach the client now, not when a first event fills a buffer.
          res.flushHeaders();
          answer.pipe(res);
        } else {
          // A whole answer (JSON, 202): gathered and sent in one write, headers included.
          let whole = '';
          answer.setEncoding('utf8');
          answer.on('data', (chunk: string) => {
            whole += chunk;
          });
          answer.once('end', () => {
            out['content-length'] = Buffer.byteLength(whole);
            res.writeHead(status, out).end(whole);
          });
        }
        // The owner went away mid-answer: the client sees its stream end, never a hang.
        answer.once('aborted', () => res.destroy());
        answer.once('error', () => res.destroy());
        resolve(answer.statusCode ?? 502);
      });
      // The client went away: so does the forwarded request (the owner ends its GET stream or request).
      let finished = false;
      res.once('close', () => {
        if (!finished && !upstream.destroyed) upstream.destroy();
      });
      upstream.end(payload);
    });
  }

  #track(work: Promise<unknown>, what: string): void {
    const tracked = work.catch((error: unknown) => this.#report(error, what));
    this.#pending.add(tracked);
    void tracked.finally(() => this.#pending.delete(tracked));
  }

  #report(error: unknown, what: string): void {
    const failure =
      error instanceof PierRedisError
        ? error
        : new PierRedisError('REDIS_SESSIONS_FAILED', `${what} failed: ${messageOf(error)}`, {
            cause: error,
          });
    try {
      this.#options.onerror?.(failure);
    } catch {}
  }
}

function principalHash(principal: string | undefined): string {
  return principal === undefined ? '' : createHash('sha256').update(principal).digest('base64url');
}

function resolveOptions(options: RedisSessionRelayOptions): Resolved {
  const checks = new RedisOptionChecks('redisSessionRelay', options, ['get', 'eval', 'connect', 'on']);
  const { url, client, advertiseUrl } = options;
  if (
    advertiseUrl !== undefined &&
    (typeof advertiseUrl !== 'string' || !/^https?:\/\/[^/]/.test(advertiseUrl))
  ) {
    checks.expect('advertiseUrl', "an http(s) URL of this replica's MCP endpoint", advertiseUrl);
  }
  checks.callback('onerror', options.onerror);
  const resolved: Resolved = {
    ...(url !== undefined && { url }),
    ...(client !== undefined && { client }),
    ...(advertiseUrl !== undefined && { advertiseUrl }),
    prefix: checks.text('prefix', options.prefix, 'pier:session:'),
    recordTtlMs: checks.int('recordTtlMs', options.recordTtlMs, 30_000, 300),
    connectTimeoutMs: checks.int('connectTimeoutMs', options.connectTimeoutMs, 2_000, 1),
    nodeId: checks.text('nodeId', options.nodeId, randomUUID()),
    ...(options.onerror !== undefined && { onerror: options.onerror }),
  };
  checks.done();
  return resolved;
}
