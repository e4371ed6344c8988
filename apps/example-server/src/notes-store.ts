import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One note as stored and returned by the tools. */
export interface Note {
  readonly id: string;
  readonly title: string;
  readonly body: string;
  readonly tags: readonly string[];
  readonly createdAt: string;
}

/** What `add` takes. */
export interface NewNote {
  readonly title: string;
  readonly body: string;
  readonly tags?: readonly string[];
}

/**
 * Where the notes live: {@link FileNotesStore} (the embedded default, one process) or
 * `RedisNotesStore` (with `REDIS_URL`: every replica serves the same notes). Reads are asynchronous
 * because a shared store answers from the network.
 */
export interface NotesStore {
  /** Every note, oldest first. */
  list(): Promise<readonly Note[]>;
  get(id: string): Promise<Note | undefined>;
  /** Notes whose title, body or tags contain `query`, ignoring case. */
  search(query: string): Promise<readonly Note[]>;
  add(input: NewNote): Promise<Note>;
  /** Deletes a note; resolves `false` when there was none with that id. */
  delete(id: string): Promise<boolean>;
  /** Waits for writes still under way (used on shutdown). */
  flush(): Promise<void>;
}

/** A note with a fresh id and creation time. */
export function newNote(input: NewNote): Note {
  return {
    id: randomUUID(),
    title: input.title,
    body: input.body,
    tags: [...(input.tags ?? [])],
    createdAt: new Date().toISOString(),
  };
}

/** Whether `note` contains `query` in its title, body or tags, ignoring case. */
export function matches(note: Note, query: string): boolean {
  const needle = query.toLowerCase();
  return (
    note.title.toLowerCase().includes(needle) ||
    note.body.toLowerCase().includes(needle) ||
    note.tags.some((tag) => tag.toLowerCase().includes(needle))
  );
}

const FILE_NAME = 'notes.json';

/**
 * The embedded default: notes kept in memory and persisted to `<dataDir>/notes.json`.
 *
 * Every change is written to a temporary file in the same directory, flushed to disk, then renamed
 * over the old file: a crash at any point leaves either the previous notes or the new ones, never a
 * half-written file. Writes are queued so two concurrent changes cannot interleave.
 */
export class FileNotesStore implements NotesStore {
  #notes: Note[] = [];
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(readonly dataDir: string) {}

  /** Opens (creating the directory if needed) and loads the notes. A corrupt file is an error, never overwritten. */
  static async open(dataDir: string): Promise<FileNotesStore> {
    const store = new FileNotesStore(dataDir);
    await mkdir(dataDir, { recursive: true });
    let text: string;
    try {
      text = await readFile(join(dataDir, FILE_NAME), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return store;
      throw error;
    }
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed) || !parsed.every(isNote)) {
      throw new Error(`${join(dataDir, FILE_NAME)} is not a list of notes; move it aside to start afresh`);
    }
    store.#notes = parsed;
    return store;
  }

  async list(): Promise<readonly Note[]> {
    return this.#notes;
  }

  async get(id: string): Promise<Note | undefined> {
    return this.#notes.find((note) => note.id === id);
  }

  async search(query: string): Promise<readonly Note[]> {
    return this.#notes.filter((note) => matches(note, query));
  }

  add(input: NewNote): Promise<Note> {
    return this.#change(() => {
      const note = newNote(input);
      return { notes: [...this.#notes, note], result: note };
    });
  }

  /** Deletes a note; resolves `false` when there was none with that id. */
  delete(id: string): Promise<boolean> {
    return this.#change(() => {
      const notes = this.#notes.filter((note) => note.id !== id);
      return { notes, result: notes.length !== this.#notes.length };
    });
  }

  /** Proves the directory is writable now (used by the health check): writes and removes a probe file. */
  probeWritable(): Promise<void> {
    return probeWritable(this.dataDir);
  }

  /** Waits for queued writes (used on shutdown). */
  flush(): Promise<void> {
    return this.#queue.then(
      () => undefined,
      () => undefined,
    );
  }

  #change<T>(apply: () => { notes: Note[]; result: T }): Promise<T> {
    const run = async (): Promise<T> => {
      const { notes, result } = apply();
      await this.#persist(notes);
      this.#notes = notes;
      return result;
    };
    const next = this.#queue.then(run, run);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #persist(notes: readonly Note[]): Promise<void> {
    const target = join(this.dataDir, FILE_NAME);
    const temp = `${target}.${process.pid}.${randomUUID()}.tmp`;
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(`${JSON.stringify(notes, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }
}

/** Whether `value` has the shape of a {@link Note} (checks what a file or Redis hands back). */
export function isNote(value: unknown): value is Note {
  if (typeof value !== 'object' || value === null) return false;
  const note = value as Record<string, unknown>;
  return (
    typeof note.id === 'string' &&
    typeof note.title === 'string' &&
    typeof note.body === 'string' &&
    Array.isArray(note.tags) &&
    note.tags.every((tag) => typeof tag === 'string') &&
    typeof note.createdAt === 'string'
  );
}

/** Proves `dir` is writable now: writes and removes a probe file. */
export async function probeWritable(dir: string): Promise<void> {
  const probe = join(dir, `.probe-${process.pid}-${randomUUID()}`);
  await writeFile(probe, 'ok');
  await rm(probe, { force: true });
}
