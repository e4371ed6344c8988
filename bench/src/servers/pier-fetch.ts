// Pier served by `createFetchHandler` (@pier/transport-http/fetch) on whatever runtime runs it: the same
// server as pier.ts's default (the echo tool, the health plugin), stateless.
import { createFetchHandler } from '@pier/transport-http/fetch';
import { benchPort, serveControl } from './common.js';
import { plainPierServer } from './plain-servers.js';
import { serveFetch } from './serve-fetch.js';

const server = plainPierServer();
serveControl();
serveFetch(createFetchHandler(server).fetch, benchPort());
