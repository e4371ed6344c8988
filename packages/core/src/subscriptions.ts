// Resource subscriptions (`resources/subscribe`, 2025 revisions) and the updates they ask for: which
// connection subscribed to which URI, and `notifications/resources/updated` to exactly those.
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import { messageOf, PierError } from './errors.js';
import type { Logger } from './logger.js';
import { describe } from './validate.js';

/** How a URI relates to the server's resources, for `resources/subscribe`. */
export type UriKind = 'subscribable' | 'static' | 'unknown';

/**
 * The subscriptions of every live connection. A connection is one SDK server (one per stdio
 * connection or HTTP session); its subscriptions are forgotten when it closes, so memory is bounded
 * by the connections the transport keeps.
 */
export class ResourceUpdates {
  readonly #subscribers = new Map<McpServer, Set<string>>();
  /** 2026-07-28 connections: the SDK routes each update to their `subscriptions/listen` streams. */
  readonly #listeners = new Set<McpServer>();
  /** Transports that deliver updates their own way (the HTTP transport's `subscriptions/listen` streams). */
  readonly #forwards = new Set<(uri: string) => void>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Connections holding at least one subscription. */
  get connections(): number {
    let count = 0;
    for (const uris of this.#subscribers.values()) if (uris.size > 0) count++;
    return count;
  }

  /** Answers `resources/subscribe` and `resources/unsubscribe` on a fresh SDK server. */
  serve(server: McpServer, kindOf: (uri: string) => UriKind): void {
    const sdk = server.server;
    sdk.setRequestHandler('resources/subscribe', async (request) => {
      const { uri } = request.params;
      const kind = kindOf(uri);
      // The same error as resources/read gives for that URI.
      if (kind === 'unknown') throw new ResourceNotFoundError(uri);
      if (kind === 'static') {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Resource ${uri} does not change, so it sends no updates to subscribe to`,
          { uri },
        );
      }
      // A server that never saw the client's initialize answers this one request and is gone
      // (stateless HTTP): accepting would promise updates that nothing could ever carry.
      if (sdk.getClientCapabilities() === undefined) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          'Subscriptions need a connection that outlives the request: this server is stateless HTTP, which cannot send updates later (use stdio, or HTTP with sessions)',
        );
      }
      this.#uris(server).add(uri);
      return {};
    });
    sdk.setRequestHandler('resources/unsubscribe', async (request) => {
      this.#subscribers.get(server)?.delete(request.params.uri);
      return {};
    });
  }

  /**
   * Registers a long-lived 2026-07-28 connection (stdio): it has no `resources/subscribe`; its client
   * opens `subscriptions/listen` streams instead, and the SDK delivers each update to those whose
   * filter names the URI. Forgotten when the connection closes.
   */
  listen(server: McpServer): void {
    this.#listeners.add(server);
    this.#onClose(server, () => this.#listeners.delete(server));
  }

  /**
   * Calls `forward(uri)` on every update, for a transport whose connections are not SDK servers that
   * outlive a request (on stateless HTTP, 2026-07-28 `subscriptions/listen` streams belong to the SDK's
   * handler). Returns the function that stops it.
   */
  forward(forward: (uri: string) => void): () => void {
    this.#forwards.add(forward);
    return () => {
      this.#forwards.delete(forward);
    };
  }

  /** Sends `notifications/resources/updated` for `uri` to every connection subscribed to it. */
  async notify(uri: string): Promise<void> {
    if (typeof uri !== 'string' || uri === '') {
      throw new PierError(
        'OPTIONS_INVALID',
        `notifyResourceUpdated: uri must be a non-empty string (got ${describe(uri)})`,
      );
    }
    const sends: Promise<void>[] = [];
    const send = (server: McpServer) =>
      server.server.sendResourceUpdated({ uri }).catch((error: unknown) => {
        // A connection going away while we send: its subscriptions go with it.
        this.#logger.debug('resource update not delivered', { uri, error: messageOf(error) });
      });
    for (const [server, uris] of this.#subscribers) if (uris.has(uri)) sends.push(send(server));
    for (const server of this.#listeners) sends.push(send(server));
    for (const forward of this.#forwards) {
      try {
        forward(uri);
      } catch (error) {
        this.#logger.warn('resource update not forwarded', { uri, error: messageOf(error) });
      }
    }
    await Promise.all(sends);
  }

  #uris(server: McpServer): Set<string> {
    let uris = this.#subscribers.get(server);
    if (uris === undefined) {
      // Kept (possibly empty) until the connection closes, so that its close is hooked only once.
      uris = new Set();
      this.#subscribers.set(server, uris);
      this.#onClose(server, () => this.#subscribers.delete(server));
    }
    return uris;
  }

  #onClose(server: McpServer, forget: () => void): void {
    const sdk = server.server;
    const previous = sdk.onclose;
    sdk.onclose = () => {
      forget();
      previous?.();
    };
  }
}
