// Everything connect() and spawnServer() opened and nobody closed yet, for closeAll() in afterEach.

interface Closable {
  close(): Promise<unknown>;
}

const open = new Set<Closable>();

export function track(thing: Closable): void {
  open.add(thing);
}

export function untrack(thing: Closable): void {
  open.delete(thing);
}

/**
 * Closes every client `connect` returned and every process `spawnServer` started that are still open,
 * together; resolves once all are closed. Call it in `afterEach`.
 */
export async function closeAll(): Promise<void> {
  const closing = [...open];
  open.clear();
  const results = await Promise.allSettled(closing.map((thing) => thing.close()));
  const failed = results.find((result) => result.status === 'rejected');
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
}
