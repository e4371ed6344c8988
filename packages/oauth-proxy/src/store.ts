// The proxy's state in a KeyValueStore (core's seam: in memory by default, Redis with @pier/redis): JSON
// records, each sealed with the proxy's secret and bound to its key. A code, refresh token or state is
// never a key itself: records are named by the SHA-256 of the secret value.
import type { KeyValueStore } from '@pier/core';
import type { Sealer } from './crypto.js';

/** What the proxy keeps, by kind: the part of the key after the namespace. */
export type RecordKind =
  | 'client' // a dynamically registered client, by client_id
  | 'cimd' // a fetched client ID metadata document, by the SHA-256 of its URL
  | 'pending' // an authorization request waiting for consent, by its request id
  | 'flow' // a login at the provider, by the SHA-256 of the state sent upstream
  | 'code' // an authorization code, by its SHA-256
  | 'code-used' // a redeemed code, by its SHA-256 (reuse revokes the grant)
  | 'grant' // a user's login for one client: consented scopes and the provider's tokens, by grant id
  | 'refresh' // a refresh token, by its SHA-256
  | 'refresh-used' // a rotated refresh token, by its SHA-256 (reuse revokes the grant)
  | 'refresh-answer' // a rotation's answer, for 10 s, for the same client's concurrent duplicates
  | 'signing-key'; // a signing key, by rotation period

export class ProxyStore {
  readonly #kv: KeyValueStore;
  readonly #sealer: Sealer;
  readonly #namespace: Promise<string>;

  /** `prefix` namespaces the proxy in a shared store; the secret's fingerprint follows it. */
  constructor(kv: KeyValueStore, sealer: Sealer, prefix: string) {
    this.#kv = kv;
    this.#sealer = sealer;
    this.#namespace = sealer.fingerprint.then((fingerprint) => `${prefix}${fingerprint}:`);
  }

  async put(kind: RecordKind, id: string, value: unknown, ttlMs: number): Promise<void> {
    const key = await this.#key(kind, id);
    await this.#kv.set(key, await this.#sealer.seal(JSON.stringify(value), key), ttlMs);
  }

  /** Writes only when nothing is there; `true` when it did. */
  async add(kind: RecordKind, id: string, value: unknown, ttlMs: number): Promise<boolean> {
    const key = await this.#key(kind, id);
    return this.#kv.add(key, await this.#sealer.seal(JSON.stringify(value), key), ttlMs);
  }

  /** The record, or `undefined` (unknown, expired, or not sealed by this secret for this key). */
  async read<T>(kind: RecordKind, id: string): Promise<T | undefined> {
    const key = await this.#key(kind, id);
    return this.#open<T>(key, await this.#kv.get(key));
  }

  /** Whether a record is there, without opening it. */
  async has(kind: RecordKind, id: string): Promise<boolean> {
    return (await this.#kv.get(await this.#key(kind, id))) !== undefined;
  }

  /** The record, removed in the same step: of concurrent callers, one gets it. */
  async take<T>(kind: RecordKind, id: string): Promise<T | undefined> {
    const key = await this.#key(kind, id);
    return this.#open<T>(key, await this.#kv.take(key));
  }

  async remove(kind: RecordKind, id: string): Promise<void> {
    await this.#kv.delete(await this.#key(kind, id));
  }

  async #key(kind: RecordKind, id: string): Promise<string> {
    return `${await this.#namespace}${kind}:${id}`;
  }

  async #open<T>(key: string, sealed: string | undefined): Promise<T | undefined> {
    if (sealed === undefined) return undefined;
    const plain = await this.#sealer.open(sealed, key);
    if (plain === undefined) return undefined;
    try {
      return JSON.parse(plain) as T;
    } catch {
      return undefined;
    }
  }
}
