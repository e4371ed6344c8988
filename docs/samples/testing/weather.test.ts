import { createServer, defineServer, defineTool } from '@pier/core';
import { closeAll, connect } from '@pier/testing';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';

// One server per test: connecting over HTTP starts it, and close() stops it.
const weather = () =>
  createServer(
    defineServer({
      name: 'weather',
      version: '1.0.0',
      tools: [
        defineTool({
          name: 'forecast',
          input: { city: z.string() },
          handler: async ({ city }, ctx) => {
            const { action, content } = await ctx.elicit({
              message: 'Which unit?',
              requestedSchema: { type: 'object', properties: { unit: { type: 'string', enum: ['C', 'F'] } } },
            });
            return `Sunny in ${city}, 21°${action === 'accept' ? content?.unit : 'C'}`;
          },
        }),
      ],
    }),
    { handleSignals: false, logLevel: 'warn' },
  );

afterEach(closeAll);

it.each(['memory', 'http'] as const)('forecast over %s, asking the unit', async (transport) => {
  const { client } = await connect(weather(), {
    era: '2025-11-25',
    transport,
    // Elicitation needs a session on HTTP (the default is stateless).
    ...(transport === 'http' ? { http: { sessions: true } } : {}),
    onElicit: () => ({ action: 'accept', content: { unit: 'F' } }),
  });
  const result = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
  expect(result.content).toEqual([{ type: 'text', text: 'Sunny in Oslo, 21°F' }]);
});

it('a 2026-07-28 client sees the same tools', async () => {
  const { client, protocolVersion } = await connect(weather());
  expect(protocolVersion).toBe('2026-07-28');
  expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['forecast']);
});
