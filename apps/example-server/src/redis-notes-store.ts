// Notes in Redis (with REDIS_URL): every replica reads and writes the same notes, so a note added through
// one replica is listed, read and deleted through any other at once.
import { isNote, matches, type NewNote, type Note, type NotesStore, newNote } from './notes-store.js';

/** The few node-redis v6 commands the store uses (a `createClient()` client has them). */
export interface NotesRedisClient {
  incr(key: string): Promise<number>;
  hGet(key: string, field: string): Promise<string | null | undefined>;
  hmGet(key: string, fields: string[]): Promise<(string | null | undefined)[]>;
  zRange(key: string, start: number, stop: number): Promise<string[]>;
  multi(): NotesRedisMulti;
}

/** A node-redis transaction (`MULTI … EXEC`), as far as the store uses it. */
export interface NotesRedisMulti {
  hSet(key: string, field: string, value: string): NotesRedisMulti;
  hDel(key: string, field: string): NotesRedisMulti;
  zAdd(key: string, member: { score: number; value: string }): NotesRedisMulti;
  zRem(key: string, member: string): NotesRedisMulti;
  exec(): Promise<unknown[]>;
}

/** Prefix of every key the example app keeps in Redis (notes, the event stream, the input-required key). */
export const REDIS_KEY_PREFIX = 'pier-notes:';

/**
 * The keys that hold the notes, all persistent (they are the data):
 * - `notes`: a hash, note id → the note as JSON;
 * - `order`: a sorted set of note ids, scored by `seq`, so that `list()` is oldest first across replicas
 *   whatever their clocks say;
 * - `seq`: the counter giving each new note its place.
 */
export function notesKeys(prefix = REDIS_KEY_PREFIX) {
  return { notes: `${prefix}notes`, order: `${prefix}order`, seq: `${prefix}seq` } as const;
}

/**
 * Notes in Redis. Each change is one `MULTI … EXEC` transaction (the note and its place together), so
 * another replica never sees a note without its place or the reverse. Nothing is cached: every read asks
 * Redis, which is what lets every replica serve the same notes.
 */
export class RedisNotesStore implements NotesStore {
  readonly #client: NotesRedisClient;
  readonly #keys: ReturnType<typeof notesKeys>;

  constructor(client: NotesRedisClient, prefix = REDIS_KEY_PREFIX) {
    this.#client = client;
    this.#keys = notesKeys(prefix);
  }

  async list(): Promise<readonly Note[]> {
    const ids = await this.#client.zRange(this.#keys.order, 0, -1);
    if (ids.length === 0) return [];
    const values = await this.#client.hmGet(this.#keys.notes, ids);
    // A note deleted between the two reads is simply not listed.
    return values.flatMap((value) => (typeof value === 'string' ? [this.#parse(value)] : []));
  }

  async get(id: string): Promise<Note | undefined> {
    const value = await this.#client.hGet(this.#keys.notes, id);
    return typeof value === 'string' ? this.#parse(value) : undefined;
  }

  async search(query: string): Promise<readonly Note[]> {
    return (await this.list()).filter((note) => matches(note, query));
  }

  async add(input: NewNote): Promise<Note> {
    const note = newNote(input);
    const seq = await this.#client.incr(this.#keys.seq);
    await this.#client
      .multi()
      .hSet(this.#keys.notes, note.id, JSON.stringify(note))
      .zAdd(this.#keys.order, { score: seq, value: note.id })
      .exec();
    return note;
  }

  async delete(id: string): Promise<boolean> {
    const [removed] = await this.#client.multi().hDel(this.#keys.notes, id).zRem(this.#keys.order, id).exec();
    return Number(removed) === 1;
  }

  /** Nothing to wait for: a change resolves once Redis acknowledged it. */
  async flush(): Promise<void> {}

  #parse(value: string): Note {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = undefined;
    }
    if (!isNote(parsed)) throw new Error(`a value in the Redis hash ${this.#keys.notes} is not a note`);
    return parsed;
  }
}
