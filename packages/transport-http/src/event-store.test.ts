import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { SessionEventStore } from './event-store.js';

const message = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: {} });

async function replay(store: SessionEventStore, after: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const streamId = await store.replayEventsAfter(after, {
    send: async (eventId, sentMessage) => {
      sent.push([eventId, sentMessage]);
    },
  });
  return { streamId, sent };
}

describe('SessionEventStore', () => {
  it('replays the events of one stream after the given id, skipping priming events', async () => {
    const store = new SessionEventStore(100);
    const priming = await store.storeEvent('s1', {} as JSONRPCMessage);
    await store.storeEvent('s2', message(9));
    const first = await store.storeEvent('s1', message(1));
    const second = await store.storeEvent('s1', message(2));
    expect(await store.getStreamIdForEventId(first)).toBe('s1');

    const fromPriming = await replay(store, priming);
    expect(fromPriming).toEqual({
      streamId: 's1',
      sent: [
        [first, message(1)],
        [second, message(2)],
      ],
    });
    expect((await replay(store, first)).sent).toEqual([[second, message(2)]]);
  });

  it('stays bounded, dropping the oldest events first', async () => {
    const store = new SessionEventStore(10);
    let last = '';
    for (let i = 0; i < 1_000; i++) last = await store.storeEvent('s', message(i));
    expect(store.size).toBeLessThanOrEqual(10);
    const { sent } = await replay(store, 's:990');
    expect(sent.map(([id]) => id)).toEqual([
      's:991',
      's:992',
      's:993',
      's:994',
      's:995',
      's:996',
      's:997',
      's:998',
      's:999',
      last,
    ]);
  });

  it('does not know ids it never issued', async () => {
    const store = new SessionEventStore(10);
    expect(await store.getStreamIdForEventId('garbage')).toBeUndefined();
    await expect(replay(store, 'garbage')).rejects.toThrow();
  });
});
