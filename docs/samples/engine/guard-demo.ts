import { createServer, defineServer, defineTool } from '@pier/core';
import { connect } from '@pier/testing';
import { z } from 'zod';
import { guardPlugin } from './guard-plugin.js';

const echo = defineTool({ name: 'echo', input: { text: z.string() }, handler: ({ text }) => `[${text}]` });
const wipe = defineTool({ name: 'wipe', annotations: { destructiveHint: true }, handler: () => 'wiped' });
const server = createServer(defineServer({ name: 'guarded', version: '1.0.0', tools: [echo, wipe] }), {
  plugins: [guardPlugin({ callsPerClient: 2 })],
  handleSignals: false,
});
// The server's own middleware runs inside the plugins': here, one log line per slow request.
server.use('*', async (request, next) => {
  const started = performance.now();
  const result = await next();
  const ms = performance.now() - started;
  if (ms > 500) request.logger.warn('slow request', { method: request.method, ms: Math.round(ms) });
  return result;
});

const { client, close } = await connect(server);
console.log((await client.listTools()).tools.map((tool) => tool.name));
for (const text of ['  hello ', 'again', 'once more']) {
  const outcome = await client.callTool({ name: 'echo', arguments: { text } }).then(
    (result) => result.content,
    (error: Error) => `refused: ${error.message}`,
  );
  console.log(outcome);
}
await close();
