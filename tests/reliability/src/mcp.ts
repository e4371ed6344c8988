// An MCP client of the SDK (v2) for the tests, and helpers over raw MCP messages.
import type { Client } from '@modelcontextprotocol/client';
import { connect } from '@pier/testing';

/** `auto` negotiates (2026-07-28 with Pier); `legacy` is the 2025-11-25 `initialize` handshake. */
export async function connectClient(url: URL | string, mode: 'auto' | 'legacy' = 'auto'): Promise<Client> {
  const { client } = await connect(url, {
    era: mode === 'auto' ? 'auto' : '2025-11-25',
    clientInfo: { name: 'reliability', version: '1.0.0' },
  });
  return client;
}

export function textOf(result: unknown): string | undefined {
  return (result as { content?: { type: string; text?: string }[] }).content?.[0]?.text;
}

export const LEGACY_VERSION = '2025-06-18';

/** A 2025-era initialize request body. */
export function initializeBody(id: number | string = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: LEGACY_VERSION,
      capabilities: {},
      clientInfo: { name: 'raw', version: '1.0.0' },
    },
  });
}
