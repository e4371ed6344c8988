import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileNotesStore } from './notes-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pier-notes-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('FileNotesStore', () => {
  it('persists notes across reopen and finds them by title, body or tag', async () => {
    const store = await FileNotesStore.open(dir);
    const a = await store.add({ title: 'Groceries', body: 'milk, eggs', tags: ['home'] });
    await store.add({ title: 'Deploy', body: 'roll out v2 on Friday', tags: ['work'] });
    const reopened = await FileNotesStore.open(dir);
    expect((await reopened.list()).map((n) => n.title)).toEqual(['Groceries', 'Deploy']);
    expect((await reopened.search('EGGS')).map((n) => n.id)).toEqual([a.id]);
    expect((await reopened.search('work')).map((n) => n.title)).toEqual(['Deploy']);
    expect((await reopened.get(a.id))?.body).toBe('milk, eggs');
  });

  it('deletes by id and reports whether anything was deleted', async () => {
    const store = await FileNotesStore.open(dir);
    const note = await store.add({ title: 't', body: 'b' });
    expect(await store.delete(note.id)).toBe(true);
    expect(await store.delete(note.id)).toBe(false);
    expect(await (await FileNotesStore.open(dir)).list()).toEqual([]);
  });

  it('keeps every note when many changes run at once, and leaves no temporary file behind', async () => {
    const store = await FileNotesStore.open(dir);
    await Promise.all(Array.from({ length: 25 }, (_, i) => store.add({ title: `n${i}`, body: '' })));
    expect(await (await FileNotesStore.open(dir)).list()).toHaveLength(25);
    expect(await readdir(dir)).toEqual(['notes.json']);
  });

  it('refuses a corrupt notes file instead of overwriting it', async () => {
    await writeFile(join(dir, 'notes.json'), '{"not":"a list"}');
    await expect(FileNotesStore.open(dir)).rejects.toThrow(/not a list of notes/);
    expect(await readFile(join(dir, 'notes.json'), 'utf8')).toBe('{"not":"a list"}');
  });

  it('keeps the previous notes when a write fails', async () => {
    const store = await FileNotesStore.open(dir);
    await store.add({ title: 'kept', body: '' });
    await rm(dir, { recursive: true, force: true });
    await expect(store.add({ title: 'lost', body: '' })).rejects.toThrow();
    expect((await store.list()).map((n) => n.title)).toEqual(['kept']);
  });
});
