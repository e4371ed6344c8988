// Loaded into every server pier dev runs (`node --import`): when pier dev retires this generation, stop
// accepting (the cluster handle is released) and let keep-alive connections go as soon as they are
// idle, so that a client's next request reaches the new code while requests in flight finish here.
import cluster from 'node:cluster';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

const servers = new Set<Server>();
let retiring = false;

subscribe('http.server.request.start', (message) => {
  const { server, response } = message as { server: Server; response: ServerResponse };
  servers.add(server);
  if (retiring) response.shouldKeepAlive = false;
});
subscribe('http.server.response.finish', (message) => {
  const { request } = message as { request: IncomingMessage };
  if (retiring) request.socket.destroySoon();
});

process.on('message', (message) => {
  if ((message as { pierDev?: unknown } | null)?.pierDev !== 'retire') return;
  retiring = true;
  for (const server of servers) {
    server.close();
    server.closeIdleConnections();
  }
  // Release the listening handles the primary lent, and the IPC channel: the process exits when its
  // last connection is done (or pier dev signals it after the grace period).
  if (cluster.isWorker) cluster.worker?.disconnect();
});
