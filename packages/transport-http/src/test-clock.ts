// Test helper (excluded from the build): a clock whose time only moves when a test says so.
import type { Clock } from './sessions.js';

export class FakeClock implements Clock {
  #now = 1_000_000;
  #timers = new Map<number, { callback: () => void; every: number; due: number }>();
  #next = 1;

  now(): number {
    return this.#now;
  }

  setInterval(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { callback, every: ms, due: this.#now + ms });
    return id;
  }

  clearInterval(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Timers not cleared yet. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward, running every interval that falls due on the way. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let soonest: { callback: () => void; every: number; due: number } | undefined;
      for (const timer of this.#timers.values()) {
        if (timer.due <= target && (soonest === undefined || timer.due < soonest.due)) soonest = timer;
      }
      if (soonest === undefined) break;
      this.#now = soonest.due;
      soonest.due += soonest.every;
      soonest.callback();
    }
    this.#now = target;
  }
}
