/**
 * The lifecycle of a Pier server, in order. A server only moves forward:
 * `starting` → `ready` → `draining` → `closed` (it may skip `ready` when it never listened).
 */
export type LifecycleState = 'starting' | 'ready' | 'draining' | 'closed';

/** Called after the state changed; `previous` is the state it left. */
export type LifecycleListener = (state: LifecycleState, previous: LifecycleState) => void;

const ORDER: Record<LifecycleState, number> = { starting: 0, ready: 1, draining: 2, closed: 3 };

/** Holds the current state and tells subscribers about each change. Internal to core. */
export class Lifecycle {
  #state: LifecycleState = 'starting';
  readonly #listeners = new Set<LifecycleListener>();

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  get state(): LifecycleState {
    return this.#state;
  }

  /** Moves forward to `next`; moving backwards or staying put is ignored. */
  advance(next: LifecycleState): void {
    const previous = this.#state;
    if (ORDER[next] <= ORDER[previous]) return;
    this.#state = next;
    for (const listener of [...this.#listeners]) {
      try {
        listener(next, previous);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  subscribe(listener: LifecycleListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }
}
