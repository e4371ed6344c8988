/**
 * The protocol revisions a test can pin, newest first. `2026-07-28` opens with `server/discover`; the
 * others are the 2025-era `initialize` handshake offering exactly that revision.
 */
export const ERAS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** A pinned revision, or `auto`: negotiate like a real SDK v2 client (`server/discover`, else `initialize`). */
export type Era = (typeof ERAS)[number] | 'auto';

/** The modern era's revision: no `initialize`, no server-to-client requests. */
export const MODERN = '2026-07-28';

/** The SDK client options that make it speak `era`. */
export function negotiationFor(era: Era): {
  versionNegotiation: { mode: 'auto' | 'legacy' | { pin: string } };
  supportedProtocolVersions?: string[];
} {
  if (era === 'auto') return { versionNegotiation: { mode: 'auto' } };
  if (era === MODERN) return { versionNegotiation: { mode: { pin: MODERN } } };
  // The legacy handshake offers the first 2025-era revision of this list, and accepts only it.
  return { versionNegotiation: { mode: 'legacy' }, supportedProtocolVersions: [era] };
}
