// Test helper (not built): the plugin inside a real Pier server, listening over @pier/transport-http
// (started by @pier/testing, whose client also proves the server answers MCP beside the routes).
import { createServer, defineServer, type PierPlugin, type PierServer, type PluginContext } from '@pier/core';
import { connect } from '@pier/testing';

export interface RunningPier {
  readonly server: PierServer;
  /** `http://127.0.0.1:<port>`. */
  readonly base: string;
  /** What the server logged (its stderr lines). */
  readonly log: readonly string[];
  /** Closes the MCP client and the server. */
  close(): Promise<void>;
}

/** Creates a server with `plugins` and listens over streamable HTTP on 127.0.0.1, port 0. */
export async function listenWith(plugins: readonly PierPlugin[], version = '2.0.0'): Promise<RunningPier> {
  const log: string[] = [];
  const server = createServer(defineServer({ name: 'health-it', version, plugins: [...plugins] }), {
    handleSignals: false,
    logStream: { write: (chunk: string) => log.push(chunk) },
  });
  const { url, close } = await connect(server, { transport: 'http' });
  return { server, base: new URL(url as string).origin, log, close };
}

/** Wraps a plugin so that a test can count the requests its routes receive, whatever serves them. */
export function countingRoutes(plugin: PierPlugin): {
  readonly plugin: PierPlugin;
  routed(): number;
  waitForRouted(count: number): Promise<void>;
} {
  let routed = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const wrapper: PierPlugin = {
    name: plugin.name,
    setup(ctx) {
      const counting: PluginContext = {
        server: ctx.server,
        get state() {
          return ctx.state;
        },
        onStateChange: (listener) => ctx.onStateChange(listener),
        addTool: (tool) => ctx.addTool(tool),
        addResource: (resource) => ctx.addResource(resource),
        addPrompt: (prompt) => ctx.addPrompt(prompt),
        logger: ctx.logger,
        notifyResourceUpdated: (uri) => ctx.notifyResourceUpdated(uri),
        onClose: (hook) => ctx.onClose(hook),
        use: (match, middleware) => ctx.use(match, middleware),
        addMethod: (method, handler, options) => ctx.addMethod(method, handler, options),
        addCapabilities: (capabilities) => ctx.addCapabilities(capabilities),
        setAuthenticator: (authenticator) => ctx.setAuthenticator(authenticator),
        observe: (observer) => ctx.observe(observer),
        addRoute: (route) => {
          const routedOne = () => {
            routed += 1;
            for (const waiter of waiters.filter((w) => w.count <= routed)) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve();
            }
          };
          const { plain } = route;
          ctx.addRoute({
            ...route,
            handler: (request) => {
              routedOne();
              return route.handler(request);
            },
            // Node transports answer from `plain`: count those too.
            ...(plain !== undefined && {
              plain: (head) => {
                routedOne();
                return plain(head);
              },
            }),
          });
        },
      };
      plugin.setup(counting);
    },
  };
  return {
    plugin: wrapper,
    routed: () => routed,
    waitForRouted(count) {
      if (routed >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
  };
}
