// Runs one plugin's setup with its PluginContext: registrations go to the declarations, and only during setup.

import type { ResourceNotifier } from '../context/types.js';
import type { Declarations } from '../declaring/gather.js';
import { validatePrompt, validateResource, validateTool } from '../declaring/validate.js';
import { messageOf, PierError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { CloseHooks } from '../server/close-hooks.js';
import type { Lifecycle } from '../server/lifecycle.js';
import type { PierPlugin, PluginContext, ServerInfo } from './api.js';

/** What a plugin's context is built from. */
export interface PluginHost {
  readonly info: ServerInfo;
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
  readonly declarations: Declarations;
  readonly notifier: ResourceNotifier;
  readonly closeHooks: CloseHooks;
}

/**
 * Runs `plugin.setup` synchronously. What it registers is validated as it comes; registering once
 * setup returned, a setup that throws and an asynchronous setup are `PLUGIN_INVALID`.
 */
export function setUpPlugin(plugin: PierPlugin, host: PluginHost): void {
  const source = `plugin "${plugin.name}"`;
  const { lifecycle, declarations: registry } = host;
  const logger = host.logger.child(plugin.name);
  let open = true;
  const whileOpen = (what: string) => {
    if (!open) {
      throw new PierError(
        'PLUGIN_INVALID',
        `${source} called ${what} after setup; register everything in setup`,
      );
    }
  };
  const ctx: PluginContext = {
    server: host.info,
    get state() {
      return lifecycle.state;
    },
    onStateChange: (listener) => lifecycle.subscribe(listener),
    addTool: (tool) => {
      whileOpen('addTool');
      registry.addTool(validateTool(tool, `${source}: addTool`), source);
    },
    addResource: (resource) => {
      whileOpen('addResource');
      registry.addResource(validateResource(resource, `${source}: addResource`), source);
    },
    addPrompt: (prompt) => {
      whileOpen('addPrompt');
      registry.addPrompt(validatePrompt(prompt, `${source}: addPrompt`), source);
    },
    addRoute: (route) => {
      whileOpen('addRoute');
      registry.addRoute(route, source);
    },
    logger,
    notifyResourceUpdated: (uri) => host.notifier.notify(uri),
    onClose: (hook) => host.closeHooks.add(hook, logger, `${source}: onClose`),
    use: (match, middleware) => {
      whileOpen('use');
      registry.addMiddleware(match, middleware, source);
    },
    addMethod: (method, handler, options) => {
      whileOpen('addMethod');
      registry.addMethod(method, handler, options, source);
    },
    addCapabilities: (capabilities) => {
      whileOpen('addCapabilities');
      registry.addCapabilities(capabilities, source);
    },
    setAuthenticator: (authenticator) => {
      whileOpen('setAuthenticator');
      registry.setAuthenticator(authenticator, source);
    },
    observe: (observer) => {
      whileOpen('observe');
      registry.addObserver(observer, source);
    },
  };
  try {
    const returned: unknown = plugin.setup(ctx);
    if (returned instanceof Promise) {
      returned.catch(() => undefined);
      throw new PierError('PLUGIN_INVALID', `${source}: setup must be synchronous (it returned a promise)`);
    }
  } catch (error) {
    if (error instanceof PierError) throw error;
    throw new PierError('PLUGIN_INVALID', `${source} failed in setup: ${messageOf(error)}`, { cause: error });
  } finally {
    open = false;
  }
}
