import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '@pier/core/transport';
import { delay, type ExchangeTracker } from './exchange.js';

/** The listener's open sockets, so that shutdown can close them. */
export class SocketSet {
  readonly #sockets = new Set<Socket>();

  /** Connections still open (idle ones included). */
  get size(): number {
    return this.#sockets.size;
  }

  add(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  /** Destroys every socket still open. */
  destroyAll(): void {
    for (const socket of [...this.#sockets]) socket.destroy();
  }
}

/**
 * How long idle connections stay open once the listener closed, for requests already on their way. Long
 * enough for a client on the same machine or network, short next to any shutdown budget.
 */
const IDLE_CONNECTION_GRACE_MS = 250;

/** What {@link drainServer} stops, and the steps it takes in between. */
export interface DrainPlan {
  readonly server: Server;
  readonly tracker: ExchangeTracker;
  readonly sockets: SocketSet;
  readonly logger: Logger;
  /** How long MCP requests are still served. */
  readonly delayMs: number;
  readonly shutdownTimeoutMs: number;
  /** Waits out the drain delay (tests end it when they choose). */
  readonly waitDelay: (ms: number) => Promise<void>;
  /** Draining began. */
  readonly beginDraining: () => void;
  /** The delay is over: refuse new MCP work. */
  readonly refuseMcp: () => void;
  /** Aborts what is still in flight in the SDK and closes every session. */
  readonly closeEndpoint: () => Promise<void>;
}

/**
 * Drains and closes: MCP keeps being served for the drain delay, then the listener closes, requests in
 * flight get up to the shutdown timeout, streams are ended and the remaining sockets destroyed.
 */
export async function drainServer(plan: DrainPlan): Promise<void> {
  const { server, tracker, sockets, logger } = plan;
  plan.beginDraining();
  await plan.waitDelay(plan.delayMs);
  plan.refuseMcp();
  // Closing the listening socket resets every connection still in the kernel's accept queue: the client
  // had completed its handshake and may have written its request, so it cannot tell a refusal from a
  // lost request. The timer above fires before this loop turn's poll phase; waiting for the check phase
  // lets that poll accept whatever is queued (those requests are read and answered 503), which leaves
  // only connections completed in the microseconds between poll and check to be reset.
  await nextTurn();
  const listenerClosed = closeListener(server);
  // Idle connections (kept-alive ones, and ones just accepted whose first request has not come yet) are
  // closed only after a short grace: a request already sent on one would otherwise be reset (the client
  // sees ECONNRESET or "other side closed"). Within the grace it is read and answered (503 for MCP) with
  // Connection: close. A request sent after the grace can only be retried by the client.
  await nextTurn();
  await nextTurn();
  if (sockets.size > 0) await delay(IDLE_CONNECTION_GRACE_MS);
  server.closeIdleConnections();
  const settled = await tracker.settle(plan.shutdownTimeoutMs);
  if (!settled) {
    logger.warn('shutdown timeout reached; cutting requests still in flight', {
      inFlight: tracker.inFlight,
    });
  }
  tracker.endStreams();
  await plan.closeEndpoint();
  server.closeAllConnections();
  sockets.destroyAll();
  await listenerClosed;
}

/**
 * Stops accepting connections. `server.close()` alone would also destroy every idle keep-alive socket at
 * once (node ≥ 19 calls `this.closeIdleConnections()` in it); that is left to the caller, so it is
 * skipped for this one call.
 */
function closeListener(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  const skip = () => {};
  server.closeIdleConnections = skip;
  try {
    server.close();
  } finally {
    delete (server as { closeIdleConnections?: unknown }).closeIdleConnections;
  }
  return closed;
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
