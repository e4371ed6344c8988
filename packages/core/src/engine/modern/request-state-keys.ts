// Request-state keys that rotate: new states are signed with the current key, and a state verifies with
// the current key or the previous one, so a round begun before a rotation — or on a replica that has not
// noticed it yet — still completes within its TTL. The keys come from a `RequestStateKeys` source shared by
// the replicas (`@pier/redis`), read with a short cache and again whenever a state fails to verify, so a
// replica notices a new key at once. Each key signs with the engine's own codec (request-state.ts); a fixed
// `requestState.key` uses that codec directly and never comes here.
import { messageOf, PierError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { InvalidStateError, RequestStateCodec } from './request-state.js';

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
 * answer is older than 5 s, and whenever a state fails to verify. Keep the previous key for at least the
 * states' TTL (`ttlSeconds`) after a rotation. `@pier/redis`'s `redisRequestStateKeys` is one.
 */
export interface RequestStateKeys {
  read(): Promise<RequestStateKeySet>;
}

/** How long a `read()` answer is used before reading again. */
export const KEYS_CACHE_MS = 5_000;

/** Options of {@link RotatingRequestStateCodec}. */
export interface RotatingRequestStateCodecOptions {
  readonly keys: RequestStateKeys;
  readonly ttlSeconds?: number | undefined;
  readonly logger: Logger;
  /** The clock, for tests. */
  readonly now?: () => number;
}

/** Mints with the current key, verifies with the current or the previous one; see the file's header. */
export class RotatingRequestStateCodec {
  readonly #options: RotatingRequestStateCodecOptions;
  readonly #now: () => number;
  /** One codec per key (by its bytes), for the keys of the last answer only. */
  #codecs = new Map<string, RequestStateCodec>();
  #set: { readonly keys: readonly string[]; readonly at: number } | undefined;
  #reading: Promise<readonly string[]> | undefined;
  #failing = false;

  constructor(options: RotatingRequestStateCodecOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** A state carrying `payload`, bound to `bind`, signed with the current key. */
  async mint(payload: unknown, bind: string): Promise<string> {
    const [current] = await this.#keys(false);
    return this.#codec(current as string).mint(payload, bind);
  }

  /** The payload of `state` when one of the keys verifies it; throws the engine's `InvalidStateError`. */
  async verify(state: string, bind: string): Promise<unknown> {
    const tried = new Set<string>();
    let refusal: InvalidStateError | undefined;
    // Known keys first; if none verifies, the keys may have rotated since they were read: read them again.
    for (const refresh of [false, true]) {
      for (const key of await this.#keys(refresh)) {
        if (tried.has(key)) continue;
        tried.add(key);
        try {
          return await this.#codec(key).verify(state, bind);
        } catch (error) {
          if (!(error instanceof InvalidStateError)) throw error;
          // The reason that says most: past the signature (expired, bound elsewhere) over a wrong key.
          if (refusal === undefined || refusal.reason === 'mac') refusal = error;
        }
      }
    }
    throw refusal ?? new InvalidStateError('mac');
  }

  /** The keys to use, current first: cached for {@link KEYS_CACHE_MS}, read again when `refresh`. */
  async #keys(refresh: boolean): Promise<readonly string[]> {
    const set = this.#set;
    if (set !== undefined && !refresh && this.#now() - set.at < KEYS_CACHE_MS) return set.keys;
    this.#reading ??= this.#read().finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  async #read(): Promise<readonly string[]> {
    let keys: string[];
    try {
      const answer = await this.#options.keys.read();
      keys = [bytesOf(answer?.current, 'current')];
      if (answer.previous !== undefined) keys.push(bytesOf(answer.previous, 'previous'));
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
    const codecs = new Map<string, RequestStateCodec>();
    for (const key of keys) {
      const codec = this.#codecs.get(key);
      if (codec !== undefined) codecs.set(key, codec);
    }
    this.#codecs = codecs;
    this.#set = { keys, at: this.#now() };
    return keys;
  }

  #codec(key: string): RequestStateCodec {
    let codec = this.#codecs.get(key);
    if (codec === undefined) {
      codec = new RequestStateCodec({
        key: Uint8Array.from(key, (char) => char.charCodeAt(0)),
        ttlSeconds: this.#options.ttlSeconds,
      });
      this.#codecs.set(key, codec);
    }
    return codec;
  }
}

/**
 * A key as the bytes the codec signs with (a string's UTF-8 bytes, as a fixed `key` is read), held in a
 * string of one char per byte so that keys compare by value.
 */
function bytesOf(key: unknown, which: string): string {
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
