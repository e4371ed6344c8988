// The proxy's signing keys (ES256), rotated by period and shared by every replica through the store: the
// key of period p is made by whichever replica needs it first (an atomic add, so all replicas sign with the
// same key), published in the JWKS from the period before it starts until its tokens have expired.
import {
  type CryptoKey,
  compactVerify,
  errors,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTHeaderParameters,
  SignJWT,
} from 'jose';
import { randomToken } from './crypto.js';
import type { ProxyStore } from './store.js';

/** A period's key, as stored (sealed): the private JWK and its public half. */
interface StoredKey {
  readonly kid: string;
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

interface LoadedKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly publicJwk: JWK;
}

export const SIGNING_ALG = 'ES256';

export class SigningKeys {
  readonly #store: ProxyStore;
  readonly #rotationMs: number;
  /** The longest a token signed with a key lives (the access token TTL). */
  readonly #tokenTtlMs: number;
  readonly #now: () => number;
  /** Loaded keys by period; a handful at most (older periods are dropped). */
  readonly #periods = new Map<number, Promise<LoadedKey>>();

  constructor(store: ProxyStore, rotationMs: number, tokenTtlMs: number, now: () => number = Date.now) {
    this.#store = store;
    this.#rotationMs = rotationMs;
    this.#tokenTtlMs = tokenTtlMs;
    this.#now = now;
  }

  /** Signs claims as an RFC 9068 access token with the current period's key. */
  async sign(claims: Record<string, unknown>): Promise<string> {
    const key = await this.#key(this.#period());
    return new SignJWT(claims)
      .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: 'at+jwt' })
      .sign(key.privateKey);
  }

  /**
   * The claims of a token this proxy signed for `audience`, expired or not (what revocation needs), or
   * `undefined` for anything else.
   */
  async verify(
    token: string,
    issuer: string,
    audience: string,
  ): Promise<Record<string, unknown> | undefined> {
    try {
      const { payload, protectedHeader } = await compactVerify(token, this.getKey, {
        algorithms: [SIGNING_ALG],
      });
      if (protectedHeader.typ !== 'at+jwt') return undefined;
      const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
      return claims.iss === issuer && claims.aud === audience ? claims : undefined;
    } catch {
      return undefined;
    }
  }

  /** The published key set: the previous period's key (its tokens may still live), the current and the next. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const now = this.#period();
    const keys: JWK[] = [];
    for (const period of [now + 1, now, now - 1]) {
      // The previous period's key is published only if it was ever made (it is never made now).
      const key = period < now ? await this.#existing(period) : await this.#key(period);
      if (key !== undefined) keys.push({ ...key.publicJwk });
    }
    return { keys };
  }

  /**
   * jose's key getter for the verifier: the public key named by the token's `kid`, from a period whose
   * tokens may still be valid; jose's `JWKSNoMatchingKey` otherwise. The same key object for the same kid.
   */
  readonly getKey = async (header: JWTHeaderParameters): Promise<CryptoKey> => {
    const period = periodOf(header.kid);
    const now = this.#period();
    if (period === undefined || period > now + 1 || period < now - 1 || header.alg !== SIGNING_ALG) {
      throw new errors.JWKSNoMatchingKey();
    }
    const key = period === now ? await this.#key(period) : await this.#existing(period);
    if (key === undefined || key.kid !== header.kid) throw new errors.JWKSNoMatchingKey();
    return key.publicKey;
  };

  #period(): number {
    return Math.floor(this.#now() / this.#rotationMs);
  }

  /** The key of `period`, made now if no replica made it yet. */
  #key(period: number): Promise<LoadedKey> {
    let loaded = this.#periods.get(period);
    if (loaded === undefined) {
      loaded = this.#loadOrCreate(period);
      this.#periods.set(period, loaded);
      // A failure (the store unreachable) is not remembered: the next request tries again.
      loaded.catch(() => this.#periods.delete(period));
      this.#forgetOld(period);
    }
    return loaded;
  }

  /** The key of `period` if it exists (never makes one). */
  async #existing(period: number): Promise<LoadedKey | undefined> {
    const loaded = this.#periods.get(period);
    if (loaded !== undefined) return loaded;
    const stored = await this.#store.read<StoredKey>('signing-key', String(period));
    if (stored === undefined) return undefined;
    // Another replica made it meanwhile: load it as the one key object for its kid.
    return this.#key(period);
  }

  async #loadOrCreate(period: number): Promise<LoadedKey> {
    const stored = await this.#store.read<StoredKey>('signing-key', String(period));
    if (stored !== undefined) return load(stored);
    const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const kid = `${period}.${randomToken(6)}`;
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
    const candidate: StoredKey = { kid, privateJwk: await exportJWK(privateKey), publicJwk };
    // Kept from the period before it (pre-published) until its last token expired, plus a margin.
    const until = (period + 2) * this.#rotationMs + this.#tokenTtlMs + 60_000;
    const ttl = Math.max(until - this.#now(), 1_000);
    if (await this.#store.add('signing-key', String(period), candidate, ttl)) {
      return { kid, privateKey, publicKey, publicJwk };
    }
    // Another replica made this period's key first: every replica signs with that one.
    const winner = await this.#store.read<StoredKey>('signing-key', String(period));
    if (winner === undefined) throw new Error('the signing key of this period could not be read back');
    return load(winner);
  }

  #forgetOld(current: number): void {
    for (const period of this.#periods.keys()) if (period < current - 2) this.#periods.delete(period);
  }
}

async function load(stored: StoredKey): Promise<LoadedKey> {
  const [privateKey, publicKey] = await Promise.all([
    importJWK(stored.privateJwk, SIGNING_ALG) as Promise<CryptoKey>,
    importJWK(stored.publicJwk, SIGNING_ALG) as Promise<CryptoKey>,
  ]);
  return { kid: stored.kid, privateKey, publicKey, publicJwk: stored.publicJwk };
}

/** The rotation period a kid names (`<period>.<random>`). */
function periodOf(kid: unknown): number | undefined {
  if (typeof kid !== 'string') return undefined;
  const match = /^(\d{1,15})\.[A-Za-z0-9_-]{8}$/.exec(kid);
  return match === null ? undefined : Number(match[1]);
}
