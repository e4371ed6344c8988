// The MCP server as a web-standard fetch handler: `fetch(request) → Response`, with the security
// defaults and limits of Pier's Node listener (Host and Origin checks, a body limit, JSON error bodies).
// The server starts on the first request: no top-level await.
import type { CreateServerOptions } from '@pier/core';
import { createFetchHandler, type FetchHandlerOptions } from '@pier/transport-http/fetch';
import { pierServer } from './pier.js';
import type { Settings } from './server.js';

export function createHandler(
  settings: Settings,
  options: { readonly server?: CreateServerOptions; readonly http?: FetchHandlerOptions } = {},
) {
// #if workers
  // Workers cannot hold 2025 sessions: 2026-07-28 clients and 2025 clients without sessions are served.
  // Deployed, name your hostname: http: { allowedHosts: ['__NAME__.<account>.workers.dev'] }.
  return createFetchHandler(pierServer(settings, options.server), options.http);
// #else
  // 2025 clients get sessions (this process lives on); 2026-07-28 clients need none. Behind a proxy or on
  // a public hostname, name it: http: { allowedHosts: ['mcp.example.com'] }.
  return createFetchHandler(pierServer(settings, options.server), { sessions: true, ...options.http });
// #endif
}
// #if bun

/** Serves the handler with Bun.serve on 127.0.0.1 (port 0: a free one); `close()` drains, then stops. */
export function start(settings: Settings, options: { port: number; server?: CreateServerOptions }) {
  const handler = createHandler(settings, { server: options.server });
  const served = Bun.serve({ hostname: '127.0.0.1', port: options.port, fetch: handler.fetch });
  return Promise.resolve({
    url: `http://127.0.0.1:${served.port}`,
    close: async () => {
      await handler.close();
      await served.stop();
    },
  });
}
// #endif
// #if deno

/** Serves the handler with Deno.serve on 127.0.0.1 (port 0: a free one); `close()` drains, then stops. */
export function start(settings: Settings, options: { port: number; server?: CreateServerOptions }) {
  const handler = createHandler(settings, { server: options.server });
  return new Promise<{ url: string; close(): Promise<void> }>((resolve) => {
    const served = Deno.serve(
      {
        hostname: '127.0.0.1',
        port: options.port,
        onListen: ({ port }) =>
          resolve({
            url: `http://127.0.0.1:${port}`,
            close: async () => {
              await handler.close();
              await served.shutdown();
            },
          }),
      },
      handler.fetch,
    );
  });
}
// #endif
