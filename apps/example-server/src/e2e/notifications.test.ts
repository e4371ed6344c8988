// In every mode the app tells subscribers when notes change: add_note and delete_note raise
// notifications/resources/updated for notes://index and notifications/resources/list_changed. Here with one
// process (no Redis), real SDK clients subscribed: a 2026-07-28 listen stream and a 2025 session.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, startHttpApp } from './test-app.js';
import { structured } from './test-clients.js';
import { listen, sleep, until, type Watcher, watcher } from './test-fleet.js';

const INDEX = 'notes://index';
const TIMEOUT_MS = 30_000;
const watchers: Watcher[] = [];

afterEach(async () => {
  await Promise.allSettled(watchers.splice(0).map((w) => w.client.close()));
  await cleanUp();
});

async function opened(url: string, era: 'modern' | 'legacy'): Promise<Watcher> {
  const w = await watcher(url, era);
  watchers.push(w);
  return w;
}

describe('notes changes reach subscribed clients (single process)', () => {
  it(
    'a 2026-07-28 listen stream hears add_note and delete_note made by another client, once each',
    async () => {
      const app = await startHttpApp();
      const listener = await opened(app.url, 'modern');
      const subscription = await listen(listener);
      expect(subscription.honoredFilter).toMatchObject({ resourceSubscriptions: [INDEX] });
      const writer = await opened(app.url, 'modern');
      const added = structured<{ note: { id: string } }>(
        await writer.client.callTool({ name: 'add_note', arguments: { title: 'Milk', body: '2 l' } }),
      );
      await until(() => listener.updates.length === 1 && listener.listChanged() === 1, 'the add');
      // The writer declared no elicitation: the delete happens at once.
      await writer.client.callTool({ name: 'delete_note', arguments: { id: added.note.id } });
      await until(() => listener.updates.length === 2 && listener.listChanged() === 2, 'the delete');
      await sleep(300);
      expect(listener.updates).toEqual([INDEX, INDEX]);
      expect(listener.listChanged()).toBe(2);
      // Reads done without changes announce nothing.
      await writer.client.callTool({ name: 'list_notes', arguments: {} });
      await sleep(300);
      expect(listener.updates).toHaveLength(2);
    },
    TIMEOUT_MS,
  );

  it(
    'a 2025 session subscribed to notes://index hears its own add_note on its GET stream',
    async () => {
      const app = await startHttpApp({ args: ['--sessions'] });
      const client = await opened(app.url, 'legacy');
      await client.client.subscribeResource({ uri: INDEX });
      await client.client.callTool({ name: 'add_note', arguments: { title: 'Eggs', body: '12' } });
      await until(() => client.updates.length === 1 && client.listChanged() === 1, 'the add');
      await sleep(300);
      expect(client.updates).toEqual([INDEX]);
      expect(client.listChanged()).toBe(1);
    },
    TIMEOUT_MS,
  );

  it(
    'negative control: a listen stream that did not ask for notes://index hears no update',
    async () => {
      const app = await startHttpApp();
      const listener = await opened(app.url, 'modern');
      await listener.client.listen({ resourceSubscriptions: ['notes://other'] });
      const writer = await opened(app.url, 'modern');
      await writer.client.callTool({ name: 'add_note', arguments: { title: 'Tea', body: 'green' } });
      await sleep(500);
      expect(listener.updates).toEqual([]);
    },
    TIMEOUT_MS,
  );
});
