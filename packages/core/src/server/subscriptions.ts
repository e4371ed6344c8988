// Change events (`resource_updated`, `*_list_changed`) between whoever raises them and every client that
// should hear them. Every change goes through the server's event bus, so a change raised anywhere (this
// process, or another replica on a shared bus) reaches each client once: a 2025 connection hears list
// changes and the resources it subscribed to; a 2026-07-28 client hears what its `subscriptions/listen`
// stream asked for.
import type { Engine } from '../engine/engine.js';
import { notificationMessage } from '../engine/wire.js';
import { describeValue, messageOf, PierError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { BusEvent, EventBus } from '../transports/host.js';

/** How a URI relates to the server's resources, for `resources/subscribe`. */
export type UriKind = 'subscribable' | 'static' | 'unknown';

/** The notification method of each list-change event, and the capability a server needs to send it. */
const LIST_CHANGES = {
  tools_list_changed: ['notifications/tools/list_changed', 'tools'],
  prompts_list_changed: ['notifications/prompts/list_changed', 'prompts'],
  resources_list_changed: ['notifications/resources/list_changed', 'resources'],
} as const;

/** One server's change events: publishes them on the bus and delivers what the bus carries. */
export class ResourceUpdates {
  readonly #logger: Logger;
  readonly #bus: EventBus;
  /** The bus's optional `flush`, read once. */
  readonly #flush: EventBus['flush'];
  readonly #unsubscribe: () => void;
  readonly #listeners = new Set<(event: BusEvent) => void>();
  #engine: Engine | undefined;

  constructor(logger: Logger, bus: EventBus) {
    this.#logger = logger;
    this.#bus = bus;
    this.#flush = typeof bus.flush === 'function' ? bus.flush : undefined;
    this.#unsubscribe = bus.subscribe((event) => this.#deliver(event));
  }

  /** Delivers events to the connections `engine` keeps open. */
  attach(engine: Engine): void {
    this.#engine = engine;
  }

  /** Calls `listener` with every event the bus carries, until the returned function is called. */
  listen(listener: (event: BusEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** 2025 connections holding at least one subscription. */
  get connections(): number {
    let count = 0;
    for (const connection of this.#engine?.connections ?? [])
      if ((connection.subscriptions?.size ?? 0) > 0) count++;
    return count;
  }

  /**
   * Publishes `notifications/resources/updated` for `uri` on the bus. Resolves once this process's clients
   * were sent it and the bus says it left for the other replicas.
   */
  async notify(uri: string): Promise<void> {
    if (typeof uri !== 'string' || uri === '') {
      throw new PierError(
        'OPTIONS_INVALID',
        `notifyResourceUpdated: uri must be a non-empty string (got ${describeValue(uri)})`,
      );
    }
    await this.publish({ kind: 'resource_updated', uri });
  }

  /** Publishes `event`; resolves once it was delivered here and the bus says it left this process (`flush`). */
  async publish(event: BusEvent): Promise<void> {
    try {
      this.#bus.publish(event);
    } catch (error) {
      // The contract says publish never throws; a bus that does must not break the caller.
      this.#logger.warn('event bus publish failed', { kind: event.kind, error: messageOf(error) });
      return;
    }
    if (this.#flush === undefined) return;
    try {
      await this.#flush.call(this.#bus);
    } catch (error) {
      this.#logger.warn('event bus flush failed', { error: messageOf(error) });
    }
  }

  /** Stops listening to the bus (the server closed). */
  close(): void {
    this.#unsubscribe();
    this.#listeners.clear();
  }

  #deliver(event: BusEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.debug('change not delivered', { kind: event.kind, error: messageOf(error) });
      }
    }
    const engine = this.#engine;
    if (engine === undefined) return;
    if (event.kind === 'resource_updated') {
      const { uri } = event;
      const message = notificationMessage('notifications/resources/updated', { ...event.params, uri });
      engine.broadcast(
        message,
        (connection) => connection.era === 'legacy' && connection.subscriptions?.has(uri) === true,
      );
      return;
    }
    const [method, capability] = LIST_CHANGES[event.kind];
    if (engine.capabilities(true)[capability] === undefined) return;
    const message = notificationMessage(method, event.params);
    engine.broadcast(message, (connection) => connection.era === 'legacy' && connection.initialized);
  }
}
