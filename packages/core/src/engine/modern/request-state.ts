// The signed `requestState` of input-required rounds (2026-07-28): the client carries it from one round to
// the next, so it is attacker-controlled input and is signed (HMAC-SHA256), bound to the method and the
// principal, and expires. Signed, not encrypted: the client can read it, so it holds no secrets.
// Node's own HMAC is used where the runtime has it (a few microseconds); Web Crypto elsewhere.
import { base64url, fromBase64url, utf8 } from '../runtime.js';

/** Options of {@link RequestStateCodec}. */
export interface RequestStateCodecOptions {
  /** At least 32 bytes; `undefined`: a random key made on first use, good for one process only. */
  readonly key: string | Uint8Array | undefined;
  /** How long a state is accepted after it was minted. Default 600. */
  readonly ttlSeconds?: number | undefined;
}

/** Why a state was refused (logged, never told to the client). */
export type StateRejection = 'malformed' | 'mac' | 'expired' | 'bind';

/** A state that failed verification. */
export class InvalidStateError extends Error {
  override readonly name = 'InvalidStateError';
  constructor(readonly reason: StateRejection) {
    super(`requestState refused: ${reason}`);
  }
}

const PREFIX = 'v1.';
const BIND_LABEL = 'pier.requestState.bind:';

type Signer = (data: string) => Promise<Uint8Array> | Uint8Array;

/** Mints and verifies request states with one key. */
export class RequestStateCodec {
  readonly #ttlSeconds: number;
  readonly #key: string | Uint8Array | undefined;
  #signer: Signer | undefined;

  constructor(options: RequestStateCodecOptions) {
    this.#key = options.key;
    this.#ttlSeconds = options.ttlSeconds ?? 600;
  }

  /** A state carrying `payload`, bound to `bind` (the method and the principal). */
  async mint(payload: unknown, bind: string): Promise<string> {
    const sign = this.#sign();
    const envelope = {
      p: payload,
      exp: Math.floor(Date.now() / 1000) + this.#ttlSeconds,
      b: base64url((await sign(BIND_LABEL + bind)).subarray(0, 16)),
    };
    const body = base64url(utf8(JSON.stringify(envelope)));
    return `${PREFIX}${body}.${base64url(await sign(PREFIX + body))}`;
  }

  /** The payload of `state` when it is genuine, unexpired and bound to `bind`; throws {@link InvalidStateError}. */
  async verify(state: string, bind: string): Promise<unknown> {
    const dot = state.lastIndexOf('.');
    if (!state.startsWith(PREFIX) || dot <= PREFIX.length) throw new InvalidStateError('malformed');
    const body = state.slice(PREFIX.length, dot);
    const sign = this.#sign();
    const expected = base64url(await sign(PREFIX + body));
    if (!constantTimeEqual(expected, state.slice(dot + 1))) throw new InvalidStateError('mac');
    let envelope: { p?: unknown; exp?: unknown; b?: unknown };
    try {
      envelope = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(fromBase64url(body)));
    } catch {
      throw new InvalidStateError('malformed');
    }
    if (typeof envelope.exp !== 'number' || envelope.exp < Math.floor(Date.now() / 1000)) {
      throw new InvalidStateError('expired');
    }
    const tag = base64url((await sign(BIND_LABEL + bind)).subarray(0, 16));
    if (typeof envelope.b !== 'string' || !constantTimeEqual(envelope.b, tag))
      throw new InvalidStateError('bind');
    return envelope.p;
  }

  #sign(): Signer {
    this.#signer ??= signer(this.#key ?? crypto.getRandomValues(new Uint8Array(32)));
    return this.#signer;
  }
}

type NodeHmac = {
  createHmac(algorithm: string, key: Uint8Array): { update(data: string): { digest(): Uint8Array } };
};

function signer(key: string | Uint8Array): Signer {
  const bytes = typeof key === 'string' ? utf8(key) : Uint8Array.from(key);
  const load = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule;
  const node = typeof load === 'function' ? (load('node:crypto') as NodeHmac | undefined) : undefined;
  if (node !== undefined) return (data) => node.createHmac('sha256', bytes).update(data).digest();
  let imported: ReturnType<typeof crypto.subtle.importKey> | undefined;
  return async (data) => {
    imported ??= crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return new Uint8Array(await crypto.subtle.sign('HMAC', await imported, utf8(data)));
  };
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
