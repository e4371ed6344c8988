import { createServer, defineServer, defineTool } from '@pier/core';
import { eraMatrix } from '@pier/testing';
import { expect, it } from 'vitest';
import { z } from 'zod';

// A fresh server per mode: the matrix listens, calls, and closes each one.
const notes = () =>
  createServer(
    defineServer({
      name: 'notes',
      version: '1.0.0',
      tools: [
        defineTool({ name: 'echo', input: { text: z.string() }, handler: async ({ text }) => text }),
        defineTool({
          name: 'delete_note',
          input: { id: z.string() },
          handler: async ({ id }, ctx) => {
            const { action, content } = await ctx.elicit({
              message: `Delete note ${id}?`,
              requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
            });
            return action === 'accept' && content?.confirm === true ? `deleted ${id}` : 'kept';
          },
        }),
      ],
    }),
    { handleSignals: false, logLevel: 'warn' },
  );

it('every tool behaves the same in every era and mode', async () => {
  const report = await eraMatrix(
    notes,
    [
      { tool: 'echo', arguments: { text: 'hi' } },
      // The answers to the questions the tool asks, in order.
      {
        tool: 'delete_note',
        arguments: { id: '1' },
        answers: [{ action: 'accept', content: { confirm: true } }],
      },
    ],
    // A stateless 2025 HTTP server cannot carry a question to its client: that mode is left out here.
    { modes: ['2026-07-28 stateless', '2025 session', 'stdio'] },
  );
  expect(report.differences, report.summary).toEqual([]);
});
