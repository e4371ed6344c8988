// Notifications and progress, as a client receives them.
import { createServer, defineResource, defineServer, defineTool } from '@pier/core';
import { closeAll, connect } from '@pier/testing';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';

const notesServer = () => {
  const notes: string[] = [];
  return createServer(
    defineServer({
      name: 'notes',
      version: '1.0.0',
      resources: [
        defineResource({
          name: 'notes',
          uri: 'notes://all',
          subscribable: true,
          handler: () => notes.join('\n'),
        }),
      ],
      tools: [
        defineTool({
          name: 'add_note',
          input: { text: z.string() },
          handler: async ({ text }, ctx) => {
            notes.push(text);
            await ctx.notifyResourceUpdated('notes://all');
            return 'added';
          },
        }),
        defineTool({
          name: 'export',
          handler: async (_args, ctx) => {
            for (let done = 1; done <= 3; done++) await ctx.reportProgress(done, { total: 3 });
            return 'exported';
          },
        }),
      ],
    }),
    { handleSignals: false, logLevel: 'warn' },
  );
};

afterEach(closeAll);

it('tells a subscriber that a resource changed', async () => {
  const { client, waitForNotification } = await connect(notesServer(), { era: '2025-11-25' });
  await client.subscribeResource({ uri: 'notes://all' });
  await client.callTool({ name: 'add_note', arguments: { text: 'call Ada' } });
  const updated = await waitForNotification('notifications/resources/updated'); // within 5 s, or TIMEOUT
  expect(updated.params).toEqual({ uri: 'notes://all' });
});

it('reports progress to a client that asked for it', async () => {
  const { client, progress } = await connect(notesServer(), { era: '2025-11-25' });
  const recorder = progress();
  await client.callTool({ name: 'export', arguments: {} }, { onprogress: recorder.onprogress });
  expect(recorder.updates.map((update) => update.progress)).toEqual([1, 2, 3]);
});
