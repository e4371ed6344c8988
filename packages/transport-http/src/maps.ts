// Maps that gain and lose an entry on every request, kept for as long as a session lives.

/**
 * Deletes `key` and hands back the map to use from then on: a new, empty one when `key` was its last entry.
 *
 * V8 replaces a map's hash table every few deletions and insertions, and the table it leaves keeps a
 * pointer to its successor and to every entry it held. In a map that lives long enough to be promoted,
 * every later table, with the requests its entries reach, then survives young-generation collections
 * until a full one. A map dropped whenever it empties takes its tables with it: the next request starts a
 * young map of its own.
 */
export function without<K, V>(map: Map<K, V>, key: K): Map<K, V> {
  if (map.size === 1 && map.has(key)) return new Map<K, V>();
  map.delete(key);
  return map;
}
