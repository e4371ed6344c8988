// Bounded sets of attribute values: what keeps metric series and span names low-cardinality whatever a
// client sends (a tool name, a method, a protocol version are all the client's strings).
import { OTHER } from './conventions.js';

/** Values admitted once proven, up to a limit; anything else reads as `_OTHER`. */
export class Vocabulary {
  readonly #known: Set<string>;
  readonly #limit: number;

  constructor(limit: number, initial: Iterable<string> = []) {
    this.#known = new Set(initial);
    this.#limit = this.#known.size + limit;
  }

  /** Admits `value` if there is room left. */
  learn(value: string): void {
    if (this.#known.size < this.#limit) this.#known.add(value);
  }

  has(value: string): boolean {
    return this.#known.has(value);
  }

  /** `value` if admitted, `_OTHER` otherwise. */
  of(value: string): string {
    return this.#known.has(value) ? value : OTHER;
  }
}

/** A protocol version as the specification writes them (`2025-11-25`), or undefined. */
export function protocolVersionOf(value: unknown): string | undefined {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;
}
