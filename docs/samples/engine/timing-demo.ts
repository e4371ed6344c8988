import { createServer, defineServer, defineTool } from '@pier/core';
import { connect } from '@pier/testing';
import { z } from 'zod';
import { timingPlugin } from './timing-plugin.js';

const echo = defineTool({ name: 'echo', input: { text: z.string() }, handler: ({ text }) => text });
const server = createServer(defineServer({ name: 'echo', version: '1.0.0', tools: [echo] }), {
  plugins: [timingPlugin((line) => console.log(line))],
  handleSignals: false,
});

for (const era of ['2026-07-28', '2025-11-25'] as const) {
  const { client, close } = await connect(server, { era });
  await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  await client
    .callTool({ name: 'missing', arguments: {} })
    .catch((error: Error) => console.log(`  ${error.message}`));
  await close();
}
