import type { EventStore, JSONRPCMessage } from '@pier/core/transport';

interface StoredEvent {
  readonly id: string;
  readonly streamId: string;
  readonly message: JSONRPCMessage;
}

/**
 * The events of one session's SSE streams, kept in memory for `Last-Event-ID` replay (SEP-1699). Bounded:
 * past `maxEvents` the oldest are dropped, and it is freed with its session. Event ids are
 * `<streamId>:<sequence>`, so a stream is still known when its events have been dropped.
 */
export class SessionEventStore implements EventStore {
  readonly #maxEvents: number;
  #events: StoredEvent[] = [];
  #sequence = 0;

  constructor(maxEvents: number) {
    this.#maxEvents = maxEvents;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}:${++this.#sequence}`;
    this.#events.push({ id, streamId, message });
    if (this.#events.length > this.#maxEvents) {
      // Drop in batches so that a full store does not copy its array on every event.
      this.#events = this.#events.slice(
        this.#events.length - this.#maxEvents + Math.ceil(this.#maxEvents / 10),
      );
    }
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return streamIdOf(eventId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = streamIdOf(lastEventId);
    if (streamId === undefined) throw new Error('Unknown event id');
    const after = Number(lastEventId.slice(streamId.length + 1));
    for (const event of this.#events) {
      if (event.streamId !== streamId || sequenceOf(event.id, streamId) <= after) continue;
      // Priming events carry no message (`{}`): they only exist to hand the client an id.
      if (!('jsonrpc' in event.message)) continue;
      await send(event.id, event.message);
    }
    return streamId;
  }

  /** Events held, for tests and diagnostics. */
  get size(): number {
    return this.#events.length;
  }
}

function streamIdOf(eventId: string): string | undefined {
  const colon = eventId.lastIndexOf(':');
  if (colon <= 0 || !/^\d+$/.test(eventId.slice(colon + 1))) return undefined;
  return eventId.slice(0, colon);
}

function sequenceOf(eventId: string, streamId: string): number {
  return Number(eventId.slice(streamId.length + 1));
}
