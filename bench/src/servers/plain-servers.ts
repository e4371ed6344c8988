// The Pier server the runtime comparison (runtimes.ts) serves in several ways (pier-fetch.ts, pier-mount.ts):
// the echo tool and the health plugin with no check.
import { createServer, defineServer, defineTool, type PierServer } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { ECHO_DESCRIPTION, ECHO_INPUT, echo } from './echo-tool.js';

/** Pier with the echo tool and the health plugin, stateless unless the transport says otherwise. */
export function plainPierServer(): PierServer {
  return createServer(
    defineServer({
      name: 'bench-pier',
      version: '1.0.0',
      plugins: [healthPlugin({ checks: [] })],
      tools: [defineTool({ name: 'echo', description: ECHO_DESCRIPTION, input: ECHO_INPUT, handler: echo })],
    }),
    { handleSignals: false },
  );
}
