// Close hooks: cleanup that must run before the process goes (flush a store, close a pool). They run
// after the transport stopped serving, one at a time, the last added first.
import { createServer, defineServer, type PierPlugin } from '@pier/core';

const pool = { close: async () => console.log('pool closed') };
const cache = { flush: async () => console.log('cache flushed') };

const poolPlugin: PierPlugin = {
  name: 'pool',
  setup: (ctx) => {
    ctx.onClose(() => pool.close()); // a plugin's hook: added first, run last
  },
};

const server = createServer(defineServer({ name: 'notes', version: '1.0.0', plugins: [poolPlugin] }), {
  handleSignals: false,
});
server.onClose(async () => {
  await cache.flush(); // the application's hook, added after createServer: run before the plugin's
});
server.onStateChange((state, previous) => console.log(`state ${previous} → ${state}`));

await server.listen({ transport: 'stdio', stdin: process.stdin, stdout: process.stderr }); // stdout stays this program's output
await server.close();
await server.close(); // idempotent: the hooks ran once
