// The same kind of server without decorators: plain declarations, which is what decorators record.
import { createServer, defineServer, defineTool } from '@pier/core';
import { z } from 'zod';

const forecast = defineTool({
  name: 'forecast',
  description: 'Forecast for a city',
  input: { city: z.string() },
  handler: async ({ city }) => `Sunny in ${city}`, // `city` is typed from `input`
});

await createServer(defineServer({ name: 'weather', version: '1.0.0', tools: [forecast] })).listen(); // stdio
