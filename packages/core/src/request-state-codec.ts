// Signs and checks input-required `requestState` with keys that can rotate: new states are signed with
// the current key, and a state verifies against the current key or the previous one, so a round begun
// before a rotation — or on a replica that has not noticed it yet — still completes within its TTL. The
// keys come from a fixed key (one process, or replicas configured alike) or from a `RequestStateKeys`
// source shared by the replicas (`@pier/redis`), read with a short cache and again whenever a state fails
// to verify, so a replica notices a new key at once. The HMAC itself is the SDK's
// `createRequestStateCodec`, one per key. Internal: the SDK path and the request engine both use it.
import { createRequestStateCodec, type RequestStateCodec } from '@modelcontextprotocol/server';
import { messageOf, PierError } from './errors.js';
import type { Logger } from './logger.js';

/** The keys {@link RequestStateKeys.read} hands out; each at least 32 bytes (a string counts its UTF-8 bytes). */
export interface RequestStateKeySet {
  /** Signs every new state (and verifies). */
  readonly current: string | Uint8Array;
  /** The key before the last rotation: states signed with it still verify (until they expire). */
  readonly previous?: string | Uint8Array | undefined;
}

/**
 * A source of request-state keys shared by the replicas of one server, so that they rotate together:
 * `createServer(…, { requestState: { keys } })`. Pier calls `read()` on first use, again when its last
 * answer is older than a few seconds, and whenever a state fails to verify. Keep the previous key for at
 * least the states' TTL (`ttlSeconds`) after a rotation. `@pier/redis`'s `redisRequestStateKeys` is one.
 */
export interface RequestStateKeys {
  read(): Promise<RequestStateKeySet>;
}

/** How long a `read()` answer is used before reading again. */
export const KEYS_CACHE_MS = 5_000;

/** Options of {@link rotatingRequestStateCodec}. */
export interface RotatingCodecOptions<Ctx> {
  /** A fixed key, or a source of keys; undefined: a random key per process, made on first use. */
  readonly key?: string | Uint8Array | undefined;
  readonly keys?: RequestStateKeys | undefined;
  readonly ttlSeconds?: number | undefined;
  /** What a state is bound to (the SDK codec's `bind`): method and principal. */
  readonly bind: (ctx: Ctx) => string;
  readonly logger: Logger;
  /** The clock, for tests. */
  readonly now?: () => number;
}

/** Signs a state for a request (`ctx`: what it is bound to), and checks one. */
export interface StateCodec<T, Ctx> {
  mint(payload: T, ctx: Ctx): Promise<string>;
  /** The payload; rejects for a forged, expired or rebound state. */
  verify(state: string, ctx: Ctx): Promise<T>;
}

/** A {@link StateCodec} whose keys can rotate; see the file's header. */
export function rotatingRequestStateCodec<T, Ctx>(options: RotatingCodecOptions<Ctx>): StateCodec<T, Ctx> {
  return new RotatingCodec<T, Ctx>(options);
}

class RotatingCodec<T, Ctx> implements StateCodec<T, Ctx> {
  readonly #options: RotatingCodecOptions<Ctx>;
  readonly #source: RequestStateKeys;
  readonly #fixed: boolean;
  readonly #now: () => number;
  /** One SDK codec per key (by its bytes), for the keys of the last answer only. */
  #codecs = new Map<string, RequestStateCodec<T>>();
  #set: { readonly keys: readonly string[]; readonly at: number } | undefined;
  #reading: Promise<readonly string[]> | undefined;
  #failing = false;

  constructor(options: RotatingCodecOptions<Ctx>) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#fixed = options.keys === undefined;
    if (options.keys !== undefined) {
      this.#source = options.keys;
    } else {
      // A fixed key never changes: read once (the random one made then, Web Crypto costing start-up time).
      const { key } = options;
      this.#source = {
        read: async () => ({ current: key ?? crypto.getRandomValues(new Uint8Array(32)) }),
      };
    }
  }

  async mint(payload: T, ctx: Ctx): Promise<string> {
    const [current] = await this.#keys(false);
    return this.#codec(current as string).mint(payload, ctx as never);
  }

  async verify(state: string, ctx: Ctx): Promise<T> {
    const tried = new Set<string>();
    let firstError: unknown;
    // Known keys first; if none verifies, the keys may have rotated since they were read: read them again.
    for (const refresh of this.#fixed ? [false] : [false, true]) {
      for (const key of await this.#keys(refresh)) {
        if (tried.has(key)) continue;
        tried.add(key);
        try {
          return await this.#codec(key).verify(state, ctx as never);
        } catch (error) {
          firstError ??= error;
        }
      }
    }
    throw firstError;
  }

  /** The keys to use, current first: cached for {@link KEYS_CACHE_MS}, read again when `refresh`. */
  async #keys(refresh: boolean): Promise<readonly string[]> {
    const set = this.#set;
    if (set !== undefined && !refresh && (this.#fixed || this.#now() - set.at < KEYS_CACHE_MS))
      return set.keys;
    this.#reading ??= this.#read().finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  async #read(): Promise<readonly string[]> {
    let keys: string[];
    try {
      const answer = await this.#source.read();
      keys = [checked(answer?.current, 'current')];
      if (answer.previous !== undefined) keys.push(checked(answer.previous, 'previous'));
    } catch (error) {
      // The source is unreachable (a Redis outage): go on with the keys known, and say so once.
      if (!this.#failing) {
        this.#failing = true;
        this.#options.logger.warn('request-state keys not read; using the last ones', {
          error: messageOf(error),
        });
      }
      if (this.#set === undefined) throw error;
      return this.#set.keys;
    }
    if (this.#failing) this.#options.logger.info('request-state keys read again');
    this.#failing = false;
    const codecs = new Map<string, RequestStateCodec<T>>();
    for (const key of keys) {
      const codec = this.#codecs.get(key);
      if (codec !== undefined) codecs.set(key, codec);
    }
    this.#codecs = codecs;
    this.#set = { keys, at: this.#now() };
    return keys;
  }

  #codec(key: string): RequestStateCodec<T> {
    let codec = this.#codecs.get(key);
    if (codec === undefined) {
      const { ttlSeconds, bind } = this.#options;
      codec = createRequestStateCodec<T>({
        key: Uint8Array.from(key, (char) => char.charCodeAt(0)),
        ...(ttlSeconds !== undefined && { ttlSeconds }),
        bind: bind as never,
      });
      this.#codecs.set(key, codec);
    }
    return codec;
  }
}

/** A key as the bytes it stands for, held in a string (one char per byte) so keys compare by value. */
function checked(key: unknown, which: string): string {
  const bytes =
    typeof key === 'string' ? new TextEncoder().encode(key) : key instanceof Uint8Array ? key : undefined;
  if (bytes === undefined || bytes.byteLength < 32) {
    throw new PierError(
      'OPTIONS_INVALID',
      `requestState.keys: read() must give a ${which} key of at least 32 bytes (a string or a Uint8Array)`,
    );
  }
  return String.fromCharCode(...bytes);
}
