// Randomness, digests and sealing, on Web Crypto only (Node 20+, Bun, Deno and Workers all have it).
import { base64url, type CryptoKey } from 'jose';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `bytes` random bytes, base64url: 32 bytes (256 bits) for every code, token, state and id. */
export function randomToken(bytes = 32): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** SHA-256 of `text`, base64url: how secrets are named in the store (never the secret itself). */
export async function sha256(text: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text))));
}

/** Compares two strings in time that does not depend on where they differ (digests of equal length). */
export async function sameSecret(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([sha256(a), sha256(b)]);
  let difference = 0;
  for (let i = 0; i < x.length; i++) difference |= x.charCodeAt(i) ^ y.charCodeAt(i);
  return difference === 0;
}

/** RFC 7636 §4.1: 43–128 characters of the unreserved set. Also the shape of a valid `code_challenge`. */
const PKCE_SHAPE = /^[A-Za-z0-9\-._~]{43,128}$/;

/** Whether `value` has the shape of a PKCE verifier (or an S256 challenge). */
export function isPkceValue(value: string): boolean {
  return PKCE_SHAPE.test(value);
}

/** Whether `verifier` matches `challenge` under S256 (RFC 7636 §4.6). */
export async function pkceMatches(verifier: string, challenge: string): Promise<boolean> {
  if (!isPkceValue(verifier)) return false;
  return sameSecret(await s256(verifier), challenge);
}

/** The S256 challenge of a verifier. */
export async function s256(verifier: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(verifier))));
}

/**
 * Seals store values with AES-256-GCM under a key derived (HKDF-SHA-256) from the proxy's secret, each bound
 * to the store key it is written under (additional data), so a value copied to another key does not open.
 */
export class Sealer {
  readonly #key: Promise<CryptoKey>;
  /** A short public name of the secret: changing the secret starts a fresh namespace in the store. */
  readonly fingerprint: Promise<string>;

  constructor(secret: string) {
    const material = crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, [
      'deriveKey',
      'deriveBits',
    ]);
    const info = (label: string) => ({
      name: 'HKDF',
      hash: 'SHA-256',
      salt: encoder.encode('@pier/oauth-proxy'),
      info: encoder.encode(label),
    });
    this.#key = material.then((base) =>
      crypto.subtle.deriveKey(info('store sealing v1'), base, { name: 'AES-GCM', length: 256 }, false, [
        'encrypt',
        'decrypt',
      ]),
    );
    this.fingerprint = material.then(async (base) =>
      base64url.encode(new Uint8Array(await crypto.subtle.deriveBits(info('store namespace v1'), base, 64))),
    );
  }

  async seal(plaintext: string, boundTo: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv, additionalData: encoder.encode(boundTo) },
      await this.#key,
      encoder.encode(plaintext),
    );
    return `${base64url.encode(iv)}.${base64url.encode(new Uint8Array(sealed))}`;
  }

  /** The plaintext, or `undefined` when the value was not sealed by this secret for this key. */
  async open(value: string, boundTo: string): Promise<string | undefined> {
    const [iv, body] = value.split('.');
    if (iv === undefined || body === undefined) return undefined;
    try {
      const plain = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: base64url.decode(iv), additionalData: encoder.encode(boundTo) },
        await this.#key,
        base64url.decode(body),
      );
      return decoder.decode(plain);
    } catch {
      return undefined;
    }
  }
}
