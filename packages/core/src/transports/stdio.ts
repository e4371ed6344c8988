// stdio: newline-delimited JSON-RPC on stdin and stdout, framed by the SDK's `StdioServerTransport`, served
// by the engine on one connection (its era decided by the first message). Pier adds the lifecycle and, on
// close, a bounded wait for answers owed. Loaded only by a server that listens on stdio.
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { RunningTransport, TransportHost } from './host.js';
import { serveTransport } from './serve.js';

/** Options of `listen()` for stdio (the default transport). */
export interface StdioListenOptions {
  readonly transport?: 'stdio';
  /** Default `process.stdin`. */
  readonly stdin?: Readable;
  /** Default `process.stdout`. Only protocol messages are written to it. */
  readonly stdout?: Writable;
}

/** How long `close()` waits on stdio for requests still being answered before cutting them. */
export const STDIO_SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * Serves `host` over stdio. `onEnd` is called when the client ends the connection (stdin closed), not when
 * Pier closes it.
 */
export async function startStdioTransport(
  host: TransportHost,
  options: StdioListenOptions,
  onEnd: () => void,
): Promise<RunningTransport> {
  const served = await serveTransport(host, new StdioServerTransport(options.stdin, options.stdout), {
    name: 'stdio',
    onEnd,
  });
  return {
    address: { transport: 'stdio', url: 'stdio:' },
    async close() {
      const owed = await served.answered(STDIO_SHUTDOWN_TIMEOUT_MS);
      if (owed > 0) host.logger.warn('closing with requests still unanswered', { unanswered: owed });
      await served.close();
    },
  };
}
