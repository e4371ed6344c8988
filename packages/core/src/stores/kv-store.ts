// A small expiring key-value store: state a plugin keeps between requests that every replica must see
// (one-time codes, pending logins, grants). The interface an adapter implements (`@pier/redis`), and the
// embedded in-memory default, bounded in entries and size.
import { describeValue, PierError } from '../errors.js';

/**
 * Keeps short strings under string keys, each until its TTL. Values are opaque to the store (JSON, or
 * sealed text); keys are namespaced by whoever writes them. Every method may be called from any replica: a
 * store shared by replicas must be strongly consistent per key, and `add` and `take` atomic, because
 * one-time codes rely on at most one caller winning.
 */
export interface KeyValueStore {
  /** The value, or `undefined` when the key is unknown or expired. */
  get(key: string): Promise<string | undefined>;
  /** Stores `value` for `ttlMs` milliseconds, replacing what the key held. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Stores `value` only when the key holds nothing; `true` when it did. Atomic. */
  add(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** The value, removed in the same step: of concurrent callers, at most one gets it. Atomic. */
  take(key: string): Promise<string | undefined>;
  /** Removes the key (nothing happens when it holds nothing). */
  delete(key: string): Promise<void>;
}

/** Options of {@link InMemoryKeyValueStore}. */
export interface InMemoryKeyValueStoreOptions {
  /** Most entries held at once. Default 10 000. */
  readonly maxEntries?: number;
  /** Most characters held at once, keys and values together. Default 16 Mi (about 32 MiB). */
  readonly maxChars?: number;
  /** The clock, for tests. */
  readonly now?: () => number;
}

/**
 * The default store: one process's memory, so it serves one replica only. Expired entries are dropped
 * when met and when the store is full; when it is still full, the oldest entries make room before their
 * TTL (a flood of writes evicts old state instead of growing memory). Use a shared store
 * (`redisKeyValueStore` from `@pier/redis`) when several replicas serve one server.
 */
export class InMemoryKeyValueStore implements KeyValueStore {
  readonly #entries = new Map<string, { readonly value: string; readonly expiresAt: number }>();
  readonly #maxEntries: number;
  readonly #maxChars: number;
  readonly #now: () => number;
  #chars = 0;
  /** When the last sweep of expired entries found nothing: a full store evicts without sweeping again. */
  #sweptAt = Number.NEGATIVE_INFINITY;

  constructor(options: InMemoryKeyValueStoreOptions = {}) {
    this.#maxEntries = bound('maxEntries', options.maxEntries, 10_000);
    this.#maxChars = bound('maxChars', options.maxChars, 16 * 1024 * 1024);
    this.#now = options.now ?? Date.now;
  }

  /** Entries and characters held now (expired entries included until they are met). */
  get size(): { readonly entries: number; readonly chars: number } {
    return { entries: this.#entries.size, chars: this.#chars };
  }

  async get(key: string): Promise<string | undefined> {
    return this.#current(checkKey(key));
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.#put(checkKey(key), checkValue(value), checkTtl(ttlMs));
  }

  async add(key: string, value: string, ttlMs: number): Promise<boolean> {
    checkKey(key);
    checkValue(value);
    checkTtl(ttlMs);
    // Read and write in one synchronous step: no other call runs in between.
    if (this.#current(key) !== undefined) return false;
    this.#put(key, value, ttlMs);
    return true;
  }

  async take(key: string): Promise<string | undefined> {
    const value = this.#current(checkKey(key));
    if (value !== undefined) this.#remove(key);
    return value;
  }

  async delete(key: string): Promise<void> {
    this.#remove(checkKey(key));
  }

  #current(key: string): string | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#remove(key);
      return undefined;
    }
    return entry.value;
  }

  #put(key: string, value: string, ttlMs: number): void {
    const chars = key.length + value.length;
    if (chars > this.#maxChars) {
      throw new PierError('OPTIONS_INVALID', `key-value store: an entry of ${chars} characters cannot fit`);
    }
    // A replaced key moves to the end: the eviction order is the order of last writes.
    this.#remove(key);
    this.#makeRoom(chars);
    this.#entries.set(key, { value, expiresAt: this.#now() + ttlMs });
    this.#chars += chars;
  }

  /** Drops expired entries, then the oldest ones, until one more entry of `chars` fits. */
  #makeRoom(chars: number): void {
    const fits = () => this.#entries.size < this.#maxEntries && this.#chars + chars <= this.#maxChars;
    if (fits()) return;
    const now = this.#now();
    // A sweep reads every entry: at most one per second while the store stays full of live entries.
    if (now - this.#sweptAt >= 1_000) {
      for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#remove(key);
      this.#sweptAt = fits() ? Number.NEGATIVE_INFINITY : now;
    }
    for (const key of this.#entries.keys()) {
      if (fits()) return;
      this.#remove(key);
    }
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#chars -= key.length + entry.value.length;
  }
}

function bound(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new PierError(
      'OPTIONS_INVALID',
      `InMemoryKeyValueStore: ${name} must be a positive integer (got ${describeValue(value)})`,
    );
  }
  return value;
}

function checkKey(key: unknown): string {
  if (typeof key !== 'string' || key === '') {
    throw new PierError(
      'OPTIONS_INVALID',
      `key-value store: a key must be a non-empty string (got ${describeValue(key)})`,
    );
  }
  return key;
}

function checkValue(value: unknown): string {
  if (typeof value !== 'string') {
    // Never quote the value: it may be a secret.
    throw new PierError(
      'OPTIONS_INVALID',
      `key-value store: a value must be a string (got a ${typeof value})`,
    );
  }
  return value;
}

function checkTtl(ttlMs: unknown): number {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new PierError(
      'OPTIONS_INVALID',
      `key-value store: ttlMs must be a positive number of milliseconds (got ${describeValue(ttlMs)})`,
    );
  }
  return ttlMs;
}
