import { describe, expect, it } from 'vitest';
import { SessionStore } from './sessions.js';
import { FakeClock } from './test-clock.js';

function store(maxSessions = 3, idleTimeoutMs = 60_000) {
  const clock = new FakeClock();
  const expired: string[] = [];
  const sessions = new SessionStore<string>({
    maxSessions,
    idleTimeoutMs,
    clock,
    onExpire: (id) => expired.push(id),
  });
  return { clock, expired, sessions };
}

describe('SessionStore', () => {
  it('refuses a session beyond the cap and keeps the existing ones', () => {
    const { sessions } = store(2);
    expect(sessions.add('a', 'A')).toBe(true);
    expect(sessions.add('b', 'B')).toBe(true);
    expect(sessions.full).toBe(true);
    expect(sessions.add('c', 'C')).toBe(false);
    expect(sessions.get('c')).toBeUndefined();
    expect(sessions.get('a')).toBe('A');
    sessions.delete('a');
    expect(sessions.add('c', 'C')).toBe(true);
  });

  it('expires a session idle for the timeout, on the periodic sweep', () => {
    const { clock, expired, sessions } = store(3, 60_000);
    sessions.start();
    sessions.add('a', 'A');
    clock.advance(30_000);
    sessions.add('b', 'B');
    clock.advance(30_000 + sessions.sweepIntervalMs);
    expect(expired).toEqual(['a']);
    expect(sessions.get('a')).toBeUndefined();
    expect(sessions.get('b')).toBe('B');
    clock.advance(30_000 + sessions.sweepIntervalMs);
    expect(expired).toEqual(['a', 'b']);
    expect(sessions.size).toBe(0);
  });

  it('counts activity: a used session lives on, a busy one never expires', () => {
    const { clock, expired, sessions } = store(3, 10_000);
    sessions.add('used', 'U');
    sessions.add('busy', 'B');
    sessions.begin('busy');
    clock.advance(9_000);
    sessions.begin('used');
    sessions.end('used');
    clock.advance(60_000);
    sessions.sweep();
    expect(expired).toEqual(['used']);
    expect(sessions.get('busy')).toBe('B');
    sessions.end('busy');
    clock.advance(10_000);
    sessions.sweep();
    expect(expired).toEqual(['used', 'busy']);
  });

  it('expires by last activity even for sessions used again within a second of their last move', () => {
    const { clock, expired, sessions } = store(3, 10_000);
    sessions.add('early', 'E');
    sessions.add('late', 'L');
    // `early` is used again at once: it stays first in the store's order, its activity is later.
    clock.advance(500);
    sessions.begin('early');
    sessions.end('early');
    clock.advance(9_700);
    sessions.sweep();
    expect(expired).toEqual(['late']);
    expect(sessions.retryAfterSeconds()).toBe(Math.ceil((300 + sessions.sweepIntervalMs) / 1000));
    clock.advance(300);
    sessions.sweep();
    expect(expired).toEqual(['late', 'early']);
  });

  it('suggests a retry delay between 1 and 60 s, from the next idle session due', () => {
    const { clock, sessions } = store(1, 20_000);
    expect(sessions.retryAfterSeconds()).toBe(60);
    sessions.add('a', 'A');
    expect(sessions.retryAfterSeconds()).toBe(Math.ceil((20_000 + sessions.sweepIntervalMs) / 1000));
    clock.advance(19_900);
    expect(sessions.retryAfterSeconds()).toBe(Math.ceil((100 + sessions.sweepIntervalMs) / 1000));
    clock.advance(3_600_000);
    expect(sessions.retryAfterSeconds()).toBe(1);
  });

  it('drain() stops the sweep timer and hands back every session', () => {
    const { clock, sessions } = store();
    sessions.start();
    sessions.add('a', 'A');
    expect(clock.pending).toBe(1);
    expect(sessions.drain()).toEqual(['A']);
    expect(clock.pending).toBe(0);
    expect(sessions.size).toBe(0);
  });

  it('sweeps at a quarter of the idle timeout, within 250 ms and 60 s', () => {
    expect(store(1, 1_000).sessions.sweepIntervalMs).toBe(250);
    expect(store(1, 40_000).sessions.sweepIntervalMs).toBe(10_000);
    expect(store(1, 30 * 60_000).sessions.sweepIntervalMs).toBe(60_000);
  });
});
