// The web `Headers` observers see (`ObservedRequest.headers`), made cheaply: a tracer reads one or two
// headers of every request (`traceparent`, `MCP-Protocol-Version`), and building the whole list as a web
// `Headers` (WebIDL conversions, a lower-cased copy of every name) cost a sixth of an observed call. `get`
// and `has` read the transport's own header reader; anything else fills the list once, then is `Headers`'.
import type { HeaderReader } from './classify.js';

/** The request's headers for observers: none off HTTP, the transport's full copy built only when needed. */
export function observedHeaders(
  read: HeaderReader | undefined,
  all: (() => Headers) | undefined,
): Headers | undefined {
  if (all === undefined) return undefined;
  if (read === undefined) return all();
  ObservedHeaders ??= observedHeadersClass();
  return new ObservedHeaders(read, all) as unknown as Headers;
}

let ObservedHeaders: ReturnType<typeof observedHeadersClass> | undefined;

/**
 * Made on first use, not at import: on Node 20 the global `Headers` loads undici (≈ 300 M instructions at
 * start), which a server that has no observer never needs.
 */
function observedHeadersClass() {
  // `Headers`' methods, called on the subclass (TypeScript's `Headers` types its methods as properties,
  // which `super.` cannot reach).
  const base = Headers.prototype;

  return class ObservedHeaders extends (Headers as unknown as new () => object) {
    readonly #read: HeaderReader;
    #all: (() => Headers) | undefined;

    constructor(read: HeaderReader, all: () => Headers) {
      super();
      this.#read = read;
      this.#all = all;
    }

    /** Copies the transport's full list in, once (before anything but `get`/`has`). */
    #fill(): void {
      const all = this.#all;
      if (all === undefined) return;
      this.#all = undefined;
      for (const [name, value] of all()) base.append.call(this as unknown as Headers, name, value);
    }

    get(name: string): string | null {
      if (this.#all === undefined) return base.get.call(this as unknown as Headers, name);
      return this.#read(name.toLowerCase()) ?? null;
    }

    has(name: string): boolean {
      if (this.#all === undefined) return base.has.call(this as unknown as Headers, name);
      return this.#read(name.toLowerCase()) !== undefined;
    }

    set(name: string, value: string): void {
      this.#fill();
      base.set.call(this as unknown as Headers, name, value);
    }

    append(name: string, value: string): void {
      this.#fill();
      base.append.call(this as unknown as Headers, name, value);
    }

    delete(name: string): void {
      this.#fill();
      base.delete.call(this as unknown as Headers, name);
    }

    getSetCookie(): string[] {
      this.#fill();
      return base.getSetCookie.call(this as unknown as Headers);
    }

    forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
      this.#fill();
      base.forEach.call(this as unknown as Headers, callback, thisArg);
    }

    entries(): ReturnType<Headers['entries']> {
      this.#fill();
      return base.entries.call(this as unknown as Headers);
    }

    keys(): ReturnType<Headers['keys']> {
      this.#fill();
      return base.keys.call(this as unknown as Headers);
    }

    values(): ReturnType<Headers['keys']> {
      this.#fill();
      return base.values.call(this as unknown as Headers);
    }

    [Symbol.iterator](): ReturnType<Headers['entries']> {
      this.#fill();
      return base[Symbol.iterator].call(this as unknown as Headers);
    }
  };
}
