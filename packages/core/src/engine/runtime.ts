// What the engine needs from its runtime, without assuming Node: Node, Bun, Deno and Workers all have Web
// Crypto, `TextEncoder`, `btoa`; Node's own faster primitives are used where they exist.

/** Runs `fn` after the current turn of the event loop (`setImmediate` where it exists). */
export function nextTurn(fn: () => void): void {
  if (typeof setImmediate === 'function') setImmediate(fn);
  else setTimeout(fn, 0);
}

const encoder = new TextEncoder();

/** UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** How many bytes `text` takes as UTF-8 (node's `Buffer.byteLength` where there is one: no copy). */
export function utf8Length(text: string): number {
  const node = nodeBuffer();
  return node !== undefined ? node.byteLength(text) : encoder.encode(text).byteLength;
}

/** Standard Base64 of `bytes`. */
export function base64(bytes: Uint8Array): string {
  const node = nodeBuffer();
  if (node !== undefined)
    return node.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** URL-safe Base64 without padding. */
export function base64url(bytes: Uint8Array): string {
  return base64(bytes).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Bytes of URL-safe (or standard) Base64; throws on anything else. */
export function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** `n` random bytes from a cryptographic source. */
export function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

/** A random, unguessable identifier (128 bits). */
export function randomId(): string {
  return base64url(randomBytes(16));
}

type NodeBuffer = {
  from(data: ArrayBufferLike, offset?: number, length?: number): { toString(encoding: string): string };
  byteLength(text: string): number;
};

function nodeBuffer(): NodeBuffer | undefined {
  return (globalThis as { Buffer?: NodeBuffer }).Buffer;
}

type NodeCrypto = {
  createHash(algorithm: string): { update(data: string): { digest(encoding: 'base64url'): string } };
};

let nodeCrypto: NodeCrypto | null | undefined;

/** `node:crypto` where the runtime has it (loaded on first use), else `undefined`. */
function nodeCryptoModule(): NodeCrypto | undefined {
  if (nodeCrypto === undefined) {
    const load = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
      ?.getBuiltinModule;
    try {
      nodeCrypto =
        (typeof load === 'function' ? (load('node:crypto') as NodeCrypto | undefined) : undefined) ?? null;
    } catch {
      nodeCrypto = null;
    }
  }
  return nodeCrypto ?? undefined;
}

/** SHA-256 of `text`, URL-safe Base64. */
export async function sha256(text: string): Promise<string> {
  const node = nodeCryptoModule();
  if (node !== undefined) return node.createHash('sha256').update(text).digest('base64url');
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(text))));
}
