// The tracker's bookkeeping: what draining relies on when exchanges end in any order.
import { describe, expect, it } from 'vitest';
import { ExchangeTracker, TrackedExchange } from './exchange.js';

class FakeExchange extends TrackedExchange {
  headersSent = false;
  readonly headers: Record<string, string> = {};
  ended = false;

  setHeader(name: string, value: string): void {
    this.headers[name] = value;
  }

  /** The response is over (what node's `close` does for a real exchange). */
  finish(): void {
    this.closed();
  }
}

describe('ExchangeTracker', () => {
  it('counts exchanges that end in any order, and marks only those still open and not started', () => {
    const tracker = new ExchangeTracker();
    const [a, b, c, d] = [1, 2, 3, 4].map(() => new FakeExchange(tracker)) as FakeExchange[];
    expect(tracker.inFlight).toBe(4);
    b?.finish();
    a?.finish();
    (c as FakeExchange).headersSent = true;
    b?.finish(); // a second close changes nothing
    expect(tracker.inFlight).toBe(2);
    tracker.closeUnstarted();
    expect([a, b, c, d].map((exchange) => exchange?.headers.connection)).toEqual([
      undefined,
      undefined,
      undefined,
      'close',
    ]);
    // The ones that moved to fill a gap are still found, and leave for good.
    c?.finish();
    (c as FakeExchange).headersSent = false;
    const e = new FakeExchange(tracker);
    tracker.closeUnstarted();
    expect([c?.headers.connection, e.headers.connection]).toEqual([undefined, 'close']);
    d?.finish();
    e.finish();
    expect(tracker.inFlight).toBe(0);
  });

  it('ends only the streams still open, and settles once the last request ends', async () => {
    const tracker = new ExchangeTracker();
    const exchanges = [1, 2, 3].map(() => new FakeExchange(tracker));
    for (const exchange of exchanges) {
      exchange.endStream = () => {
        exchange.ended = true;
        exchange.endStream = undefined;
      };
    }
    exchanges[0]?.finish();
    const settled = tracker.settle(60_000);
    tracker.endStreams();
    expect(exchanges.map((exchange) => exchange.ended)).toEqual([false, true, true]);
    for (const exchange of exchanges) exchange.finish();
    await expect(settled).resolves.toBe(true);
    expect(tracker.inFlight).toBe(0);
  });
});
