// An MCP client of the SDK (v2) for the tests, and helpers over raw MCP messages.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export async function connectClient(url: URL | string, mode: 'auto' | 'legacy' = 'auto'): Promise<Client> {
  const client = new Client({ name: 'reliability', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
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
