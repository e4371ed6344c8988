// A Redis connection that speaks RESP2 on its own socket, for the limit store's one command per request.
//
// Why not node-redis here: a limit check is on the path of every counted call, and node-redis's command
// path allocates about 10 KB a command (its command queue, typed-reply transforms, a write deferred with
// `setImmediate`). At 1,000 calls/s that made a limited server collect young garbage a quarter more often
// than the same server without limits, and those pauses were most of what the limiter added to the p99
// (bench/RESULTS.md, "Limits"). This connection writes a command at once (Nagle off), keeps one FIFO of
// waiting replies, and parses the few reply types a script returns. It does what the store needs and no
// more: no offline queue (a command sent while disconnected fails at once, like `disableOfflineQueue`),
// reconnects forever with a capped backoff, AUTH and SELECT from the URL. Plain TCP only: `rediss://` (TLS)
// goes through node-redis, whose TLS options a user can set.
import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';

/** An error reply of Redis (`-ERR …`, `-NOSCRIPT …`): the command failed, the connection is fine. */
export class RedisReplyError extends Error {
  override readonly name = 'RedisReplyError';
}

/** Where and how to connect, read from a `redis://` URL. */
interface Endpoint {
  readonly host: string;
  readonly port: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly db: number | undefined;
}

/** Whether a URL is one this connection serves (`redis://`); others (`rediss://`…) go to node-redis. */
export function speaksResp(url: string): boolean {
  return url.startsWith('redis://');
}

function endpointOf(url: string): Endpoint {
  const parsed = new URL(url);
  const path = parsed.pathname.replace(/^\//, '');
  const db = path === '' ? undefined : Number(path);
  if (db !== undefined && !(Number.isInteger(db) && db >= 0)) {
    // The URL is not echoed: it may hold a password.
    throw new RedisReplyError(`the database in the Redis URL's path is not a number: "/${path}"`);
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1';
  return {
    host,
    port: parsed.port === '' ? 6379 : Number(parsed.port),
    username: parsed.username === '' ? undefined : decodeURIComponent(parsed.username),
    password: parsed.password === '' ? undefined : decodeURIComponent(parsed.password),
    db,
  };
}

/** One RESP2 command: an array of bulk strings. */
export function encodeCommand(args: readonly string[]): string {
  let out = `*${args.length}\r\n`;
  for (const arg of args) out += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
  return out;
}

/** A reply: a string, an integer, `null`, an error reply, or an array of those. */
export type RespReply = string | number | null | RedisReplyError | RespReply[];

/** Returned by the parser when the buffer ends inside a reply: wait for more bytes. */
const INCOMPLETE = Symbol('incomplete');

/**
 * Reads RESP2 replies from a byte stream that arrives in arbitrary pieces. `push` takes the next piece and
 * hands every complete reply, in order, to `onReply`.
 */
export class RespParser {
  #buffer: Buffer | undefined;
  #offset = 0;
  readonly #onReply: (reply: RespReply) => void;

  constructor(onReply: (reply: RespReply) => void) {
    this.#onReply = onReply;
  }

  push(chunk: Buffer): void {
    const rest = this.#buffer;
    const buffer = rest === undefined ? chunk : Buffer.concat([rest, chunk]);
    let start = 0;
    while (start < buffer.length) {
      this.#offset = start;
      const reply = this.#read(buffer);
      if (reply === INCOMPLETE) break;
      start = this.#offset;
      this.#onReply(reply);
    }
    this.#buffer = start < buffer.length ? buffer.subarray(start) : undefined;
  }

  /** Drops a partial reply (the connection it came from is gone). */
  reset(): void {
    this.#buffer = undefined;
    this.#offset = 0;
  }

  #read(buffer: Buffer): RespReply | typeof INCOMPLETE {
    const at = this.#offset;
    const end = buffer.indexOf(13, at); // '\r'
    if (end === -1 || end + 1 >= buffer.length) return INCOMPLETE;
    const type = buffer[at];
    const next = end + 2;
    switch (type) {
      case 43: // '+'
        this.#offset = next;
        return buffer.toString('utf8', at + 1, end);
      case 45: // '-'
        this.#offset = next;
        return new RedisReplyError(buffer.toString('utf8', at + 1, end));
      case 58: // ':'
        this.#offset = next;
        return integerAt(buffer, at + 1, end);
      case 36: {
        // '$'
        const length = integerAt(buffer, at + 1, end);
        if (length < 0) {
          this.#offset = next;
          return null;
        }
        if (next + length + 2 > buffer.length) return INCOMPLETE;
        this.#offset = next + length + 2;
        return buffer.toString('utf8', next, next + length);
      }
      case 42: {
        // '*'
        const count = integerAt(buffer, at + 1, end);
        this.#offset = next;
        if (count < 0) return null;
        const items: RespReply[] = new Array(count);
        for (let index = 0; index < count; index++) {
          const item = this.#read(buffer);
          if (item === INCOMPLETE) return INCOMPLETE;
          items[index] = item;
        }
        return items;
      }
      default:
        throw new RedisReplyError(`Redis sent a reply this client cannot read (type byte ${String(type)})`);
    }
  }
}

/** The decimal integer in `buffer[start, end)` (RESP's lengths and integer replies), without a string. */
function integerAt(buffer: Buffer, start: number, end: number): number {
  const negative = buffer[start] === 45; // '-'
  let value = 0;
  for (let index = negative ? start + 1 : start; index < end; index++) {
    const digit = (buffer[index] as number) - 48;
    if (digit < 0 || digit > 9) throw new RedisReplyError('Redis sent a malformed number');
    value = value * 10 + digit;
  }
  return negative ? -value : value;
}

/** A command waiting for its reply (AUTH and SELECT, sent as the socket opens, are not in the queue). */
interface Waiting {
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: Error) => void;
  /** When it was sent (`performance.now()`), for the timeout. */
  readonly at: number;
  /** An `EVALSHA`'s script: on NOSCRIPT the command is sent again as `EVAL` with it. */
  readonly script: string | undefined;
  readonly args: readonly string[];
}

/** Options of {@link RespConnection}. */
export interface RespConnectionOptions {
  /**
   * A command not answered within this many ms fails, with every command sent after it, and the connection
   * is made again (Redis stopped answering, or the network dropped it silently). Unset: no timeout.
   */
  readonly timeoutMs?: number;
}

/** At most this many commands wait for replies; more fail at once (Redis stopped answering). */
const MAX_WAITING = 10_000;

/**
 * One connection to Redis, with what the limit store calls: `evalScript`, `ping`, and node-redis's
 * connection surface (`isReady`, `isOpen`, `connect`, `close`, `destroy`, `on('error')`).
 */
export class RespConnection extends EventEmitter {
  readonly #endpoint: Endpoint;
  readonly #parser = new RespParser((reply) => this.#reply(reply));
  readonly #waiting: Waiting[] = [];
  /** Replies to skip: the AUTH and SELECT sent when the socket opened. */
  #setup = 0;
  #socket: Socket | undefined;
  #ready = false;
  #open = false;
  #closing = false;
  #retries = 0;
  #retry: NodeJS.Timeout | undefined;
  #firstReady: { resolve: () => void; reject: (error: Error) => void } | undefined;
  #closed: (() => void) | undefined;
  readonly #timeoutMs: number | undefined;
  /** Armed while commands wait: fires at the oldest one's deadline (one timer, not one a command). */
  #deadline: NodeJS.Timeout | undefined;

  constructor(url: string, options: RespConnectionOptions = {}) {
    super();
    this.#endpoint = endpointOf(url);
    this.#timeoutMs = options.timeoutMs;
  }

  get isReady(): boolean {
    return this.#ready;
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** Starts connecting (and reconnecting whenever the connection drops); resolves once first ready. */
  connect(): Promise<void> {
    if (this.#open) return Promise.resolve();
    this.#open = true;
    this.#closing = false;
    const first = new Promise<void>((resolve, reject) => {
      this.#firstReady = { resolve, reject };
    });
    this.#dial();
    return first;
  }

  ping(): Promise<unknown> {
    return this.send(['PING']);
  }

  /**
   * Runs `script` by its SHA-1 `sha` (`EVALSHA`); when Redis does not have it cached (NOSCRIPT: a restart, a
   * `SCRIPT FLUSH`), sends it once as `EVAL`, which caches it again. One promise either way.
   */
  evalScript(
    sha: string,
    script: string,
    keys: readonly string[],
    args: readonly string[],
  ): Promise<unknown> {
    return this.#send(['EVALSHA', sha, String(keys.length), ...keys, ...args], script);
  }

  /** Sends one command at once; fails at once when not connected. */
  send(args: readonly string[]): Promise<unknown> {
    return this.#send(args, undefined);
  }

  #send(args: readonly string[], script: string | undefined): Promise<unknown> {
    const socket = this.#socket;
    if (!this.#ready || socket === undefined) {
      return Promise.reject(new Error(this.#open ? 'not connected to Redis' : 'the connection is closed'));
    }
    if (this.#waiting.length >= MAX_WAITING) {
      return Promise.reject(new Error(`${MAX_WAITING} commands are waiting for Redis to answer`));
    }
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject, at: performance.now(), script, args });
      socket.write(encodeCommand(args));
      if (this.#timeoutMs !== undefined && this.#deadline === undefined) this.#arm(this.#timeoutMs);
    });
  }

  #arm(ms: number): void {
    this.#deadline = setTimeout(this.#expire, ms);
    this.#deadline.unref();
  }

  /** The oldest waiting command's deadline: fail everything waiting if it passed, else wait for it. */
  readonly #expire = (): void => {
    this.#deadline = undefined;
    const oldest = this.#waiting[0];
    const timeoutMs = this.#timeoutMs;
    if (oldest === undefined || timeoutMs === undefined) return;
    const left = oldest.at + timeoutMs - performance.now();
    if (left > 1) {
      this.#arm(left);
      return;
    }
    this.#failWaiting(new Error(`Redis did not answer within ${timeoutMs} ms`));
    // Replies that come later would be taken for the next commands' own: start a new connection.
    this.#drop();
  };

  /** Gives up the current socket at once (no command is written to it after this) and dials again. */
  #drop(): void {
    const socket = this.#socket;
    if (socket === undefined) return;
    socket.destroy();
    this.#lost(socket);
  }

  #failWaiting(error: Error): void {
    const waiting = this.#waiting.splice(0);
    for (const { reject } of waiting) reject(error);
  }

  /** Closes after the replies still awaited have come (no reconnect). */
  close(): Promise<void> {
    if (!this.#open) return Promise.resolve();
    this.#open = false;
    this.#closing = true;
    this.#stopRetry();
    this.#firstReady?.reject(new Error('the connection was closed before it was ready'));
    this.#firstReady = undefined;
    const socket = this.#socket;
    if (socket === undefined || socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#closed = resolve;
      if (!this.#ready) socket.destroy();
      else if (this.#waiting.length === 0) socket.end();
    });
  }

  /** Closes at once: commands still waiting fail. */
  destroy(): void {
    this.#open = false;
    this.#closing = true;
    this.#stopRetry();
    this.#firstReady?.reject(new Error('the connection was destroyed before it was ready'));
    this.#firstReady = undefined;
    this.#socket?.destroy();
  }

  #dial(): void {
    const { host, port } = this.#endpoint;
    const socket = connect({ host, port });
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on('connect', () => this.#opened(socket));
    socket.on('data', (chunk: Buffer) => {
      if (this.#socket !== socket) return;
      try {
        this.#parser.push(chunk);
      } catch (error) {
        // Bytes that are not RESP: nothing after them can be trusted; start a new connection.
        this.#emitError(error as Error);
        this.#drop();
      }
    });
    socket.on('error', (error) => this.#emitError(error));
    socket.on('close', () => this.#lost(socket));
  }

  #opened(socket: Socket): void {
    const { username, password, db } = this.#endpoint;
    const setup: string[][] = [];
    if (password !== undefined)
      setup.push(username === undefined ? ['AUTH', password] : ['AUTH', username, password]);
    if (db !== undefined && db !== 0) setup.push(['SELECT', String(db)]);
    if (setup.length === 0) {
      this.#becameReady();
      return;
    }
    this.#setup = setup.length;
    socket.write(setup.map(encodeCommand).join(''));
  }

  #becameReady(): void {
    this.#ready = true;
    this.#retries = 0;
    this.#firstReady?.resolve();
    this.#firstReady = undefined;
  }

  #reply(reply: RespReply): void {
    if (this.#setup > 0) {
      this.#setup--;
      if (reply instanceof RedisReplyError) {
        // A wrong password or database: report it and try again later (it may be fixed on the server).
        this.#emitError(new RedisReplyError(`Redis refused the connection's setup: ${reply.message}`));
        this.#drop();
        return;
      }
      if (this.#setup === 0) this.#becameReady();
      return;
    }
    const waiting = this.#waiting.shift();
    if (waiting === undefined) return;
    if (!(reply instanceof RedisReplyError)) waiting.resolve(reply);
    else if (waiting.script !== undefined && reply.message.startsWith('NOSCRIPT')) {
      // EVALSHA → EVAL, with the same keys and arguments (after the SHA-1 in `args`).
      this.#send(['EVAL', waiting.script, ...waiting.args.slice(2)], undefined).then(
        waiting.resolve,
        waiting.reject,
      );
    } else waiting.reject(reply);
    if (this.#closing && this.#waiting.length === 0) this.#socket?.end();
  }

  #lost(socket: Socket): void {
    if (this.#socket !== socket) return;
    this.#socket = undefined;
    this.#ready = false;
    this.#setup = 0;
    this.#parser.reset();
    if (this.#deadline !== undefined) clearTimeout(this.#deadline);
    this.#deadline = undefined;
    if (this.#waiting.length > 0)
      this.#failWaiting(new Error('the connection to Redis was lost before it answered'));
    if (!this.#open) {
      const closed = this.#closed;
      this.#closed = undefined;
      closed?.();
      return;
    }
    // Reconnect forever, never slower than once a second: a replica must come back when Redis does.
    const delay = Math.min(50 * 2 ** Math.min(this.#retries, 5), 1_000);
    this.#retries++;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#open) this.#dial();
    }, delay);
    this.#retry.unref();
  }

  #stopRetry(): void {
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    this.#retry = undefined;
  }

  #emitError(error: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', error);
  }
}
