// Pier served by `createFetchHandler` (@pier/transport-http/fetch) on whatever runtime runs it: the same
// server as pier.ts's default (the echo tool, the health plugin), stateless.
import { createServer, defineServer, defineTool } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { createFetchHandler } from '@pier/transport-http/fetch';
import { benchPort, serveControl } from './common.js';
import { ECHO_DESCRIPTION, ECHO_INPUT, echo } from './echo-tool.js';
import { serveFetch } from './serve-fetch.js';

const server = createServer(
  defineServer({
    name: 'bench-pier',
    version: '1.0.0',
    plugins: [healthPlugin({ checks: [] })],
    tools: [defineTool({ name: 'echo', description: ECHO_DESCRIPTION, input: ECHO_INPUT, handler: echo })],
  }),
  { handleSignals: false },
);
serveControl();
serveFetch(createFetchHandler(server).fetch, benchPort());
