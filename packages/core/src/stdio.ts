// stdio: the SDK's `serveStdio` owns the protocol (it negotiates the era: 2026-07-28 or the 2025
// `initialize` handshake); Pier adds the lifecycle and a bounded wait for running calls on close.
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { RunningTransport, TransportHost } from './contract.js';
import type { InFlight } from './registry.js';

/** Options of `listen()` for stdio (the default transport). */
export interface StdioListenOptions {
  readonly transport?: 'stdio';
  /** Default `process.stdin`. */
  readonly stdin?: Readable;
  /** Default `process.stdout`. Only protocol messages are written to it. */
  readonly stdout?: Writable;
}

/** How long `close()` waits for running tool, resource and prompt calls on stdio before cutting them. */
export const STDIO_SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * Serves `host` over stdio. `onEnd` is called when the client ends the connection (stdin closed),
 * not when Pier closes it.
 */
export function startStdioTransport(
  host: TransportHost,
  inFlight: InFlight,
  options: StdioListenOptions,
  onEnd: () => void,
): RunningTransport {
  const wire = new StdioServerTransport(options.stdin, options.stdout);
  const handle = serveStdio(() => host.createMcpServer(), {
    transport: wire,
    onerror: (error) => host.logger.warn('stdio', { error: error.message }),
  });
  // serveStdio has just installed its own onclose; chain ours behind it to learn that stdin ended.
  const sdkOnClose = wire.onclose;
  let closing = false;
  wire.onclose = () => {
    sdkOnClose?.();
    if (!closing) onEnd();
  };
  return {
    address: { transport: 'stdio', url: 'stdio:' },
    async close() {
      closing = true;
      if (!(await inFlight.idle(STDIO_SHUTDOWN_TIMEOUT_MS))) {
        host.logger.warn('closing with calls still running', { running: inFlight.count });
      }
      await handle.close();
    },
  };
}
