// Asking the client for user input (ctx.elicit) and a model completion (ctx.sample), and telling
// subscribers that a resource changed — here to a 2025 client that answers both kinds of question.
import { createServer, defineResource, defineServer, defineTool } from '@pier/core';
import { connect } from '@pier/testing';
import { z } from 'zod';

let notes = ['buy milk'];

const server = createServer(
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
          const { action, content } = await ctx.elicit({
            message: `Add "${text}"?`,
            requestedSchema: {
              type: 'object',
              properties: { priority: { type: 'string', enum: ['low', 'high'], default: 'low' } },
            },
          });
          if (action !== 'accept') return 'not added';
          notes = [...notes, `${text} (${content?.priority})`];
          await ctx.notifyResourceUpdated('notes://all');
          return `added; ${notes.length} notes`;
        },
      }),
      defineTool({
        name: 'summarize',
        handler: async (_args, ctx) => {
          const answer = await ctx.sample({
            messages: [{ role: 'user', content: { type: 'text', text: `Summarize:\n${notes.join('\n')}` } }],
            maxTokens: 100,
          });
          const [first] = [answer.content].flat();
          return `Summary: ${first?.type === 'text' ? first.text : '(no text)'}`;
        },
      }),
    ],
  }),
  { handleSignals: false },
);

const test = await connect(server, {
  era: '2025-11-25',
  onElicit: () => ({ action: 'accept', content: { priority: 'high' } }),
  onSample: (params) => ({
    model: 'demo-model',
    role: 'assistant',
    content: {
      type: 'text',
      text: `(${params.messages.length} message, ${params.maxTokens} tokens at most)`,
    },
  }),
});
await test.client.subscribeResource({ uri: 'notes://all' });
console.log((await test.client.callTool({ name: 'add_note', arguments: { text: 'call Ada' } })).content);
console.log('updated:', (await test.waitForNotification('notifications/resources/updated')).params);
console.log((await test.client.readResource({ uri: 'notes://all' })).contents[0]);
console.log((await test.client.callTool({ name: 'summarize', arguments: {} })).content);
await test.close();
