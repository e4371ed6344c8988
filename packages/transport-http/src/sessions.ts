import type { IncomingMessage, ServerResponse } from 'node:http';

/** Time as the session store sees it; injectable so that tests need not wait for minutes. */
export interface Clock {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  /** A repeating timer that must not keep the process alive on its own. */
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** The real clock: `performance.now()` and unref'd intervals. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setInterval(callback, ms) {
    const timer = setInterval(callback, ms);
    // Node and Bun: never keep the process alive on its own (Deno and Workers have no unref).
    (timer as { unref?: () => void }).unref?.();
    return timer;
  },
  clearInterval(handle) {
    clearInterval(handle as ReturnType<typeof setInterval>);
  },
};

/** What a session registry is made with (see the `sessionRegistry` option). */
export interface SessionRegistryInit<T> {
  readonly maxSessions: number;
  readonly idleTimeoutMs: number;
  readonly clock: Clock;
  /** Call (once) for a session removed because it was idle too long: the transport closes it. */
  readonly onExpire: (id: string, value: T) => void;
}

/** Options of {@link SessionStore}: the same as any registry's. */
export type SessionStoreOptions<T> = SessionRegistryInit<T>;

/**
 * Where 2025-era sessions live, by id: the seam behind the `sessionRegistry` option. The transport adds a
 * session on `initialize`, looks it up on every request, marks the requests and streams it serves as
 * begun and ended (a busy session never expires), and deletes it on DELETE or close. The default is
 * {@link SessionStore}: in memory, capped, idle-expiring.
 */
export interface SessionRegistry<T> {
  /** Sessions held. */
  readonly size: number;
  /** Whether a new session would exceed the cap. */
  readonly full: boolean;
  get(id: string): T | undefined;
  /** Adds a session; `false` (and nothing added) when full or the id is taken. */
  add(id: string, value: T): boolean;
  delete(id: string): boolean;
  begin(id: string): void;
  end(id: string): void;
  /** Expires idle sessions now (calling `onExpire` for each); returns how many. */
  sweep(): number;
  /** Seconds a client refused for a full registry should wait (`Retry-After`). */
  retryAfterSeconds(): number;
  /** Starts expiring idle sessions. */
  start(): void;
  /** Stops, forgets every session and returns them, for the transport to close. */
  drain(): T[];
}

interface Entry<T> {
  readonly value: T;
  lastActive: number;
  /** When the entry last moved to the end of the order (`lastActive` is never earlier). */
  movedAt: number;
  /** Requests and streams of the session still open: a busy session never expires. */
  busy: number;
}

/**
 * An entry used again moves to the end of the order only when it last moved longer ago than this. Moving it
 * on every request (a delete and a set) would make V8 replace the map's hash table every few requests, and a
 * replaced table keeps a pointer to its successor and to what it held, which the young-generation collector
 * then keeps alive until a full collection.
 */
const MOVE_AFTER_MS = 1_000;

/**
 * Bounded, expiring session registry. Entries are kept in order of last activity, to within a second (an
 * entry used is moved to the end, at most once a second), so a sweep only visits sessions that are due (and
 * those used within the last second of their move), and memory stays bounded by
 * `maxSessions` whatever clients do.
 */
export class SessionStore<T> implements SessionRegistry<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #options: SessionStoreOptions<T>;
  #timer: unknown;

  constructor(options: SessionStoreOptions<T>) {
    this.#options = options;
  }

  /** How often idle sessions are looked for: a quarter of the idle timeout, within 250 ms … 60 s. */
  get sweepIntervalMs(): number {
    return Math.min(Math.max(Math.floor(this.#options.idleTimeoutMs / 4), 250), 60_000);
  }

  get size(): number {
    return this.#entries.size;
  }

  get full(): boolean {
    return this.#entries.size >= this.#options.maxSessions;
  }

  get(id: string): T | undefined {
    return this.#entries.get(id)?.value;
  }

  /** Adds a session; `false` (and nothing added) when the store is full or the id is taken. */
  add(id: string, value: T): boolean {
    if (this.full || this.#entries.has(id)) return false;
    const now = this.#options.clock.now();
    this.#entries.set(id, { value, lastActive: now, movedAt: now, busy: 0 });
    return true;
  }

  delete(id: string): boolean {
    return this.#entries.delete(id);
  }

  /** A request or stream of the session started. */
  begin(id: string): void {
    const entry = this.#touch(id);
    if (entry !== undefined) entry.busy++;
  }

  /** A request or stream of the session ended. */
  end(id: string): void {
    const entry = this.#touch(id);
    if (entry !== undefined && entry.busy > 0) entry.busy--;
  }

  /** Expires every session idle for at least the timeout; returns how many were expired. */
  sweep(): number {
    const deadline = this.#options.clock.now() - this.#options.idleTimeoutMs;
    const expired: [string, T][] = [];
    for (const [id, entry] of this.#entries) {
      // Every entry after this one moved later still, and was active since it moved.
      if (entry.movedAt > deadline) break;
      if (entry.busy === 0 && entry.lastActive <= deadline) expired.push([id, entry.value]);
    }
    for (const [id, value] of expired) {
      this.#entries.delete(id);
      this.#options.onExpire(id, value);
    }
    return expired.length;
  }

  /** Seconds until an idle session is due to expire (a slot may free up then), between 1 and 60. */
  retryAfterSeconds(): number {
    const now = this.#options.clock.now();
    let earliest: number | undefined;
    for (const entry of this.#entries.values()) {
      // Entries after this one were active later than `earliest` could be.
      if (earliest !== undefined && entry.movedAt > earliest) break;
      if (entry.busy > 0) continue;
      if (earliest === undefined || entry.lastActive < earliest) earliest = entry.lastActive;
    }
    if (earliest === undefined) return 60;
    const dueInMs = earliest + this.#options.idleTimeoutMs - now + this.sweepIntervalMs;
    return Math.min(Math.max(Math.ceil(dueInMs / 1000), 1), 60);
  }

  /** Starts the periodic sweep. */
  start(): void {
    if (this.#timer === undefined) {
      this.#timer = this.#options.clock.setInterval(() => this.sweep(), this.sweepIntervalMs);
    }
  }

  /** Stops the sweep and forgets every session (without closing them), returning them. */
  drain(): T[] {
    if (this.#timer !== undefined) this.#options.clock.clearInterval(this.#timer);
    this.#timer = undefined;
    const values = [...this.#entries.values()].map((entry) => entry.value);
    this.#entries.clear();
    return values;
  }

  #touch(id: string): Entry<T> | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    const now = this.#options.clock.now();
    entry.lastActive = now;
    if (now - entry.movedAt > MOVE_AFTER_MS) {
      entry.movedAt = now;
      this.#entries.delete(id);
      this.#entries.set(id, entry);
    }
    return entry;
  }
}

/** What a {@link SessionRelay} is told about a session this replica opens. */
export interface SessionClaim {
  /** Who opens it (the authenticator's `principalOf`), when an authenticator runs. */
  readonly principal: string | undefined;
  /** URL of this replica's MCP endpoint as the listener sees it, such as `http://127.0.0.1:3000/mcp`. */
  readonly endpoint: string;
  /** The `maxSessions` option: with a relay, the most sessions open in the whole fleet. */
  readonly maxSessions: number;
  /** The idle timeout; the owner's timer expires the session (and releases it). */
  readonly idleTimeoutMs: number;
}

/** A request for a session this replica does not hold, handed to {@link SessionRelay.relay}. */
export interface RelayedRequest {
  readonly sessionId: string;
  /** Who sends it, worked out as for {@link SessionClaim.principal}. */
  readonly principal: string | undefined;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** The parsed JSON body of a POST (already read from `req`); `undefined` for GET and DELETE. */
  readonly body: unknown;
}

/**
 * Serving 2025-era sessions on any replica (the `sessionRelay` option). The replica that served
 * `initialize` owns the session; it {@link claim}s it before, {@link touch}es it on every request and
 * {@link release}s it when it ends. A replica that gets a request for an id it does not hold asks
 * {@link relay} to serve it (forward it to the owner and send the owner's answer back); when that returns
 * `false` the client gets the same 404 as for an unknown session. A relay marks what it forwards with an
 * `X-Pier-Relayed` header; such a request is never relayed again (an owner that lost the session answers
 * 404 itself). Without a relay (the default) nothing of this runs.
 */
export interface SessionRelay {
  /**
   * Records this replica as the owner of new session `id`, within the fleet-wide cap. `false`: the fleet
   * is full (the client gets 503). A throw also refuses the session with 503.
   */
  claim(id: string, claim: SessionClaim): Promise<boolean>;
  /** A request or stream of an owned session began: keep its record alive. Must not throw. */
  touch(id: string): void;
  /** An owned session ended (deleted, expired, closed, or its `initialize` refused). Must not throw. */
  release(id: string): void;
  /** Serves a request for a session not held here; `false` when there is no such session (404). */
  relay(request: RelayedRequest): Promise<boolean>;
}
