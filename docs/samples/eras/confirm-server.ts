// A tool that asks the user before it acts. Written once: Pier asks a 2025 client with a real
// elicitation/create request, and answers a 2026-07-28 client with an input-required result.
import { createServer, defineServer, defineTool } from '@pier/core';
import { z } from 'zod';

export function newServer() {
  let notes = ['buy milk', 'call Ada'];
  const deleteNote = defineTool({
    name: 'delete_note',
    input: { index: z.number().int().min(0) },
    handler: async ({ index }, ctx) => {
      const note = notes[index];
      if (note === undefined) return { content: [{ type: 'text', text: `no note ${index}` }], isError: true };
      // Everything before the question runs again on 2026-07-28 (the handler re-runs with the answer):
      // change nothing until the last question is answered.
      const { action, content } = await ctx.elicit({
        message: `Delete "${note}"?`,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean' } },
          required: ['confirm'],
        },
      });
      if (action !== 'accept' || content?.confirm !== true) return `kept "${note}"`;
      notes = notes.filter((_, i) => i !== index);
      return `deleted "${note}"; ${notes.length} left`;
    },
  });

  return createServer(defineServer({ name: 'notes', version: '1.0.0', tools: [deleteNote] }), {
    logLevel: 'error',
    handleSignals: false,
  });
}
