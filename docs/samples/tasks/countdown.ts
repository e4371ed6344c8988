// A long-running tool as a task (the io.modelcontextprotocol/tasks extension): a client of the extension
// gets a task id at once and polls tasks/get; other clients get an ordinary call.
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer, defineServer, defineTool } from '@pier/core';
import { httpTransport } from '@pier/transport-http';
import { z } from 'zod';

const countdown = defineTool({
  name: 'countdown',
  description: 'Counts down, a second a step; runs as a task for clients of the tasks extension',
  input: { from: z.number().int().min(1).max(60) },
  task: 'optional',
  handler: async ({ from }, ctx) => {
    for (let left = from; left > 0; left--) {
      ctx.signal.throwIfAborted(); // tasks/cancel aborts the signal
      await ctx.reportProgress(from - left, { total: from, message: `${left} to go` }); // the statusMessage
      await sleep(1_000);
    }
    return 'lift-off';
  },
});

const server = createServer(defineServer({ name: 'tasks-demo', version: '1.0.0', tools: [countdown] }));
console.error((await server.listen(httpTransport({ port: 3000 }))).url);
