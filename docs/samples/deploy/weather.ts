// The server every deploy sample serves: one tool and the health routes. A Pier server is served by one
// transport, so each mount makes its own.
import { createServer, defineServer, defineTool, type PierServer } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { z } from 'zod';

const forecast = defineTool({
  name: 'forecast',
  description: 'Tomorrow’s weather in a city',
  input: { city: z.string() },
  handler: async ({ city }) => `Sunny in ${city}`,
});

export function weatherServer(): PierServer {
  return createServer(
    defineServer({
      name: 'weather',
      version: '1.0.0',
      tools: [forecast],
      plugins: [healthPlugin({ checks: [] })],
    }),
  );
}
