// Change events for the connections core builds: resource subscriptions (`resources/subscribe`, 2025
// revisions) and the notifications they ask for. Every change goes through the server's event bus, so a
// change raised anywhere (this process, or another replica on a shared bus) reaches every connection once.
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import { describe, messageOf, PierError } from './errors.js';
import type { Logger } from './logger.js';
import type { BusEvent, EventBus } from './transport-contract.js';

/** How a URI relates to the server's resources, for `resources/subscribe`. */
export type UriKind = 'subscribable' | 'static' | 'unknown';

/**
 * The long-lived connections core built (one SDK server per stdio connection or HTTP session) and what
 * each subscribed to. A connection is forgotten when it closes, so memory is bounded by the connections
 * the transport keeps. Per-request servers are not tracked: the SDK's HTTP handler hears the bus itself.
 */
export class ResourceUpdates {
  /** 2025-era connections and the URIs each subscribed to. */
  readonly #subscribers = new Map<McpServer, Set<string>>();
  /** Every long-lived connection, for list-changed events; 2026-07-28 ones also for resource updates. */
  readonly #connections = new Map<McpServer, 'modern' | 'legacy' | undefined>();
  readonly #logger: Logger;
  readonly #bus: EventBus;
  /** The bus's optional `flush`, read once. */
  readonly #flush: EventBus['flush'];
  /** Deliveries started by the event being published right now (the in-memory bus is synchronous). */
  #deliveries: Promise<void>[] | undefined;
  readonly #unsubscribe: () => void;

  constructor(logger: Logger, bus: EventBus) {
    this.#logger = logger;
    this.#bus = bus;
    this.#flush = typeof bus.flush === 'function' ? bus.flush : undefined;
    this.#unsubscribe = bus.subscribe((event) => this.#deliver(event));
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
   * Registers a connection that outlives a request (stdio, an HTTP session): it hears list changes, and a
   * 2026-07-28 one hears every resource update (the SDK routes them to its `subscriptions/listen` streams).
   * Forgotten when the connection closes.
   */
  connect(server: McpServer, era: 'modern' | 'legacy' | undefined): void {
    this.#connections.set(server, era);
    this.#onClose(server, () => {
      this.#connections.delete(server);
      this.#subscribers.delete(server);
    });
  }

  /**
   * Publishes `notifications/resources/updated` for `uri` on the bus. Resolves once this process's
   * connections were sent it (other replicas deliver on their own).
   */
  async notify(uri: string): Promise<void> {
    if (typeof uri !== 'string' || uri === '') {
      throw new PierError(
        'OPTIONS_INVALID',
        `notifyResourceUpdated: uri must be a non-empty string (got ${describe(uri)})`,
      );
    }
    await this.publish({ kind: 'resource_updated', uri });
  }

  /**
   * Publishes `event`; resolves once the deliveries it started in this process are done and the bus says
   * the event left this process (its optional `flush`).
   */
  async publish(event: BusEvent): Promise<void> {
    const outer = this.#deliveries;
    const started: Promise<void>[] = [];
    this.#deliveries = started;
    try {
      this.#bus.publish(event);
      if (this.#flush !== undefined) started.push(this.#flushed());
    } catch (error) {
      // The contract says publish never throws; a bus that does must not break the caller.
      this.#logger.warn('event bus publish failed', { kind: event.kind, error: messageOf(error) });
    } finally {
      this.#deliveries = outer;
    }
    await Promise.all(started);
  }

  /** The bus's `flush`, which must not reject: one that does is logged, never thrown at the caller. */
  async #flushed(): Promise<void> {
    try {
      await this.#flush?.call(this.#bus);
    } catch (error) {
      this.#logger.warn('event bus flush failed', { error: messageOf(error) });
    }
  }

  /** Stops listening to the bus (the server closed). */
  close(): void {
    this.#unsubscribe();
  }

  #deliver(event: BusEvent): void {
    const send = (server: McpServer, sending: (server: McpServer) => Promise<void>) => {
      const delivery = sending(server).catch((error: unknown) => {
        // A connection going away while we send: its subscriptions go with it.
        this.#logger.debug('change not delivered', { kind: event.kind, error: messageOf(error) });
      });
      this.#deliveries?.push(delivery);
    };
    if (event.kind === 'resource_updated') {
      const { uri } = event;
      const sending = (server: McpServer) => server.server.sendResourceUpdated({ uri });
      for (const [server, uris] of this.#subscribers) if (uris.has(uri)) send(server, sending);
      for (const [server, era] of this.#connections) if (isModern(server, era)) send(server, sending);
      return;
    }
    const sending =
      event.kind === 'tools_list_changed'
        ? (server: McpServer) => server.server.sendToolListChanged()
        : event.kind === 'prompts_list_changed'
          ? (server: McpServer) => server.server.sendPromptListChanged()
          : (server: McpServer) => server.server.sendResourceListChanged();
    for (const server of this.#connections.keys()) send(server, sending);
  }

  #uris(server: McpServer): Set<string> {
    let uris = this.#subscribers.get(server);
    if (uris === undefined) {
      // Kept (possibly empty) until the connection closes, so that its close is hooked only once.
      uris = new Set();
      this.#subscribers.set(server, uris);
      if (!this.#connections.has(server)) this.#onClose(server, () => this.#subscribers.delete(server));
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

/**
 * Whether a connection speaks 2026-07-28: as the transport said, or, for a server handed to the SDK without
 * one (`serveStdio(() => server.createMcpServer())`), because it never saw a 2025 `initialize`.
 */
function isModern(server: McpServer, era: 'modern' | 'legacy' | undefined): boolean {
  return era === 'modern' || (era === undefined && server.server.getClientCapabilities() === undefined);
}
