// createServer: a declaration plus its plugins → a server that listens and closes.
import type { McpServer } from '@modelcontextprotocol/server';
import { type CloseHook, CloseHooks, DEFAULT_CLOSE_HOOK_TIMEOUT_MS, MAX_TIMEOUT_MS } from './close-hooks.js';
import type {
  CloseReason,
  HttpRoute,
  ListenResult,
  McpServerOptions,
  PierPlugin,
  RunningTransport,
  ServerInfo,
  TransportHost,
} from './contract.js';
import type { ServerDeclaration } from './declaration.js';
import { classDeclaration } from './decorators.js';
import { messageOf, PierError } from './errors.js';
import type { HttpListenOptions } from './http-options.js';
import { Lifecycle, type LifecycleListener, type LifecycleState } from './lifecycle.js';
import { createLogger, isLogLevel, type Logger, type LogLevel, type LogStream } from './logger.js';
import { setUpPlugin } from './plugins.js';
import { Registry } from './registry.js';
import { type ShutdownSignal, watchSignals } from './signals.js';
import { type StdioListenOptions, startStdioTransport } from './stdio.js';
import { loadHttpTransport } from './transport-loader.js';
import { describe, validatePlugins, validateServerDeclaration } from './validate.js';

/** Options of `listen()` for `@pier/transport-http`; see that package for defaults. */
export type StreamableHttpListenOptions = HttpListenOptions & { readonly transport: 'streamable-http' };

/** Options of `listen()`: nothing (or `transport: 'stdio'`) for stdio, or the HTTP transport's. */
export type ListenOptions = StdioListenOptions | StreamableHttpListenOptions;

/** The transports `listen()` knows. */
export const TRANSPORTS = ['stdio', 'streamable-http'] as const;

/** Options of {@link createServer}. */
export interface CreateServerOptions {
  /** Lowest level logged. Default: `PIER_LOG_LEVEL`, else `info`. */
  readonly logLevel?: LogLevel;
  /** Where log lines go. Default `process.stderr`; never stdout. */
  readonly logStream?: LogStream;
  /** Your own logger instead of Pier's (it replaces `logLevel` and `logStream`). */
  readonly logger?: Logger;
  /** Close on SIGTERM/SIGINT and exit once closed. Default `true`. */
  readonly handleSignals?: boolean;
  /**
   * More plugins, set up after the declaration's own (`@MCPServer({ plugins })`), under the same rules:
   * for plugins that need values only known at run time (a database handle, the configuration).
   */
  readonly plugins?: readonly PierPlugin[];
  /**
   * How long the close hooks (`onClose`) may take together before the close goes on without them.
   * Default 10 000 ms.
   */
  readonly closeHookTimeoutMs?: number;
}

/** Options of {@link PierServer.close}. */
export interface CloseOptions {
  /** How long the transport keeps serving new requests after draining began. HTTP default: 0 on `close()`. */
  readonly drainDelayMs?: number;
}

/**
 * A server made by {@link createServer}. It is also a {@link TransportHost}, so it can be handed to
 * a transport of your own, and `createMcpServer()` can feed the SDK's `createMcpHandler` or `serveStdio`.
 */
export interface PierServer extends TransportHost {
  /** Where the server listens, once `listen()` resolved. */
  readonly address: ListenResult | undefined;
  /** Serves stdio (default) or streamable HTTP. Rejects with a {@link PierError} on misuse. */
  listen(options?: ListenOptions): Promise<ListenResult>;
  /** Drains and closes; idempotent (every call returns the same promise). */
  close(options?: CloseOptions): Promise<void>;
  /**
   * Runs `hook` once when the server closes (by `close()`, a signal, or stdin ending), after the
   * transport stopped serving — no request is in flight any more — and before the state turns
   * `closed` and a signal exits the process. Hooks run one at a time, the last added first. A hook
   * that throws is logged, does not stop the others, and makes a signal's exit code 1. Returns the
   * function that removes the hook. Throws `SERVER_CLOSED` once the hooks have started running.
   *
   * @example
   * ```ts
   * const server = createServer(NotesServer, { store });
   * server.onClose(() => store.flush());
   * ```
   */
  onClose(hook: CloseHook): () => void;
  /**
   * Tells every client subscribed to `uri` that the resource changed (`notifications/resources/updated`).
   * Resolves once sent; a client that did not subscribe hears nothing. See `subscribable` on `@Resource`.
   */
  notifyResourceUpdated(uri: string): Promise<void>;
  /** See {@link TransportHost.onResourceUpdated}: every `notifyResourceUpdated(uri)` calls `listener(uri)`. */
  onResourceUpdated(listener: (uri: string) => void): () => void;
}

/**
 * Creates a server from a class decorated with `@MCPServer`: constructs it once with `config`, then
 * runs each plugin's `setup`. Duplicate names, conflicting routes and bad plugins throw a {@link PierError}.
 *
 * @example
 * ```ts
 * const server = createServer(WeatherServer, config);
 * await server.listen();
 * ```
 */
export function createServer(
  serverClass: new () => object,
  config?: undefined,
  options?: CreateServerOptions,
): PierServer;
export function createServer<Config>(
  serverClass: new (config: Config) => object,
  config: Config,
  options?: CreateServerOptions,
): PierServer;
/** Creates a server from a plain declaration (see `defineServer`), for code without decorators. */
export function createServer(declaration: ServerDeclaration, options?: CreateServerOptions): PierServer;
export function createServer(target: unknown, second?: unknown, third?: unknown): PierServer {
  if (typeof target === 'function') {
    const declared = classDeclaration(target);
    if (!declared) {
      throw new PierError(
        'DECLARATION_INVALID',
        `createServer: class ${target.name || '(anonymous)'} is not decorated with @MCPServer`,
      );
    }
    const instance = new (target as new (config: unknown) => object)(second);
    return new Server(bind(declared, instance), `class ${target.name}`, serverOptions(third));
  }
  const declaration = validateServerDeclaration(target, 'createServer');
  return new Server(declaration, 'the server declaration', serverOptions(second));
}

class Server implements PierServer {
  readonly info: ServerInfo;
  readonly logger: Logger;
  readonly routes: readonly HttpRoute[];
  readonly #lifecycle: Lifecycle;
  readonly #registry: Registry;
  readonly #host: TransportHost;
  readonly #handleSignals: boolean;
  readonly #closeHooks: CloseHooks;
  readonly #closeHookTimeoutMs: number;
  /** Whether every close hook finished without error in time; known once closed. */
  #closeHooksClean = true;
  #address: ListenResult | undefined;
  #listening: Promise<ListenResult> | undefined;
  #transport: RunningTransport | undefined;
  #closing: Promise<void> | undefined;
  #unwatchSignals: (() => void) | undefined;

  constructor(declaration: ServerDeclaration, source: string, options: CreateServerOptions) {
    this.info = Object.freeze({ name: declaration.name, version: declaration.version });
    this.logger =
      options.logger ??
      createLogger({
        scope: declaration.name,
        ...(options.logLevel !== undefined && { level: options.logLevel }),
        ...(options.logStream !== undefined && { stream: options.logStream }),
      });
    this.#handleSignals = options.handleSignals ?? true;
    this.#closeHooks = new CloseHooks(declaration.name);
    this.#closeHookTimeoutMs = options.closeHookTimeoutMs ?? DEFAULT_CLOSE_HOOK_TIMEOUT_MS;
    this.#lifecycle = new Lifecycle((error) =>
      this.logger.error('a lifecycle listener threw', { error: messageOf(error) }),
    );
    this.#registry = new Registry(
      {
        ...this.info,
        ...(declaration.title !== undefined && { title: declaration.title }),
        ...(declaration.description !== undefined && { description: declaration.description }),
      },
      declaration.instructions,
      this.logger,
    );
    for (const tool of declaration.tools ?? []) this.#registry.addTool(tool, source);
    for (const resource of declaration.resources ?? []) this.#registry.addResource(resource, source);
    for (const prompt of declaration.prompts ?? []) this.#registry.addPrompt(prompt, source);
    const pluginHost = {
      info: this.info,
      logger: this.logger,
      lifecycle: this.#lifecycle,
      registry: this.#registry,
      closeHooks: this.#closeHooks,
    };
    const plugins = allPlugins(declaration.plugins ?? [], options.plugins ?? [], source);
    for (const plugin of plugins) setUpPlugin(plugin, pluginHost);
    this.routes = this.#registry.routes;
    const registry = this.#registry;
    const createMcpServer = (options?: McpServerOptions) => registry.createMcpServer(options);
    const lifecycle = this.#lifecycle;
    this.#host = Object.freeze({
      info: this.info,
      logger: this.logger,
      routes: this.routes,
      get state() {
        return lifecycle.state;
      },
      onStateChange: (listener: LifecycleListener) => lifecycle.subscribe(listener),
      createMcpServer,
      onResourceUpdated: (listener: (uri: string) => void) => registry.updates.forward(listener),
    });
    this.createMcpServer = createMcpServer;
    this.logger.debug('created', {
      plugins: plugins.map((p) => p.name).join(',') || undefined,
      routes: this.routes.length,
    });
  }

  /** A fresh SDK server with everything registered (bound: pass it as an SDK server factory). */
  readonly createMcpServer: (options?: McpServerOptions) => McpServer;

  onResourceUpdated(listener: (uri: string) => void): () => void {
    return this.#registry.updates.forward(listener);
  }

  get state(): LifecycleState {
    return this.#lifecycle.state;
  }

  get address(): ListenResult | undefined {
    return this.#address;
  }

  onStateChange(listener: LifecycleListener): () => void {
    return this.#lifecycle.subscribe(listener);
  }

  notifyResourceUpdated(uri: string): Promise<void> {
    return this.#registry.updates.notify(uri);
  }

  onClose(hook: CloseHook): () => void {
    return this.#closeHooks.add(hook, this.logger, 'onClose');
  }

  async listen(options: ListenOptions = {}): Promise<ListenResult> {
    if (typeof options !== 'object' || options === null) {
      throw new PierError('OPTIONS_INVALID', `listen: options must be an object (got ${describe(options)})`);
    }
    const transport = options.transport ?? 'stdio';
    if (!(TRANSPORTS as readonly unknown[]).includes(transport)) {
      throw new PierError(
        'UNKNOWN_TRANSPORT',
        `listen: unknown transport ${describe(transport)}; valid transports are ${TRANSPORTS.map((t) => `'${t}'`).join(', ')}`,
      );
    }
    if (this.#closing) {
      throw new PierError('SERVER_CLOSED', `listen: server "${this.info.name}" is closed; create a new one`);
    }
    if (this.#listening) {
      const where = this.#address ? ` on ${this.#address.url}` : '';
      throw new PierError(
        'ALREADY_LISTENING',
        `listen: server "${this.info.name}" is already listening${where}`,
      );
    }
    this.#listening = this.#start(options);
    try {
      return await this.#listening;
    } catch (error) {
      if (!this.#closing) {
        this.#listening = undefined; // a failed start (say a port in use) may be retried
        this.#unwatchSignals?.();
        this.#unwatchSignals = undefined;
      }
      throw error;
    }
  }

  close(options: CloseOptions = {}): Promise<void> {
    if (this.#closing) return this.#closing;
    const drainDelayMs = options?.drainDelayMs;
    if (drainDelayMs !== undefined && !(typeof drainDelayMs === 'number' && drainDelayMs >= 0)) {
      return Promise.reject(
        new PierError(
          'OPTIONS_INVALID',
          `close: drainDelayMs must be a number ≥ 0 (got ${describe(drainDelayMs)})`,
        ),
      );
    }
    this.#closing = this.#close('close', drainDelayMs);
    return this.#closing;
  }

  async #start(options: ListenOptions): Promise<ListenResult> {
    if (this.#handleSignals) {
      this.#unwatchSignals = watchSignals({
        logger: this.logger,
        closeOnSignal: (signal) => this.#closeOnSignal(signal),
      });
    }
    let running: RunningTransport;
    if (options.transport === 'streamable-http') {
      const { transport: _, ...httpOptions } = options;
      const module = await loadHttpTransport();
      running = await module.startHttpTransport(this.#host, httpOptions);
    } else {
      running = startStdioTransport(
        this.#host,
        options,
        () => {
          this.logger.info('stdin ended: closing');
          this.close().catch((error) => this.logger.error('close failed', { error: messageOf(error) }));
        },
        this.#registry.updates,
      );
    }
    this.#transport = running;
    this.#address = running.address;
    this.#lifecycle.advance('ready');
    this.logger.info('listening', { transport: running.address.transport, url: running.address.url });
    return running.address;
  }

  /** Resolves `true` when the close went cleanly, close hooks included; rejects when it failed. */
  async #closeOnSignal(signal: ShutdownSignal): Promise<boolean> {
    // SIGINT is someone at a terminal: no drain delay. SIGTERM lets the transport pick its own.
    this.#closing ??= this.#close(signal, signal === 'SIGINT' ? 0 : undefined);
    await this.#closing;
    return this.#closeHooksClean;
  }

  async #close(reason: CloseReason, drainDelayMs: number | undefined): Promise<void> {
    this.#lifecycle.advance('draining');
    this.logger.info('closing', { reason });
    try {
      await this.#listening?.catch(() => undefined);
      await this.#transport?.close({ reason, ...(drainDelayMs !== undefined && { drainDelayMs }) });
    } finally {
      // Even after a failed transport close: the application's resources still need releasing.
      // The hooks never throw (failures are logged), so the transport's error, if any, goes on.
      this.#closeHooksClean = await this.#closeHooks.run(this.#closeHookTimeoutMs);
      this.#lifecycle.advance('closed');
      this.#unwatchSignals?.();
      this.#unwatchSignals = undefined;
      this.logger.info('closed');
    }
  }
}

/** The declaration's plugins, then the options' ones; a name may not appear in both. */
function allPlugins(
  declared: readonly PierPlugin[],
  given: readonly PierPlugin[],
  source: string,
): readonly PierPlugin[] {
  const names = new Set(declared.map((plugin) => plugin.name));
  for (const plugin of given) {
    if (names.has(plugin.name)) {
      throw new PierError(
        'DUPLICATE_NAME',
        `createServer: plugin "${plugin.name}" of the options is already declared by ${source}`,
      );
    }
  }
  return [...declared, ...given];
}

/** The class's declaration with every handler bound to the one instance. */
function bind(declaration: ServerDeclaration, instance: object): ServerDeclaration {
  const bound = <T extends { readonly handler: Function }>(member: T): T => ({
    ...member,
    handler: member.handler.bind(instance),
  });
  return {
    ...declaration,
    tools: (declaration.tools ?? []).map(bound),
    // A template's `list` reads the instance's state too.
    resources: (declaration.resources ?? []).map((resource) => {
      const withHandler = bound(resource);
      return 'list' in resource && typeof resource.list === 'function'
        ? { ...withHandler, list: resource.list.bind(instance) }
        : withHandler;
    }),
    prompts: (declaration.prompts ?? []).map(bound),
  };
}

function serverOptions(value: unknown): CreateServerOptions {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null) {
    throw new PierError(
      'OPTIONS_INVALID',
      `createServer: options must be an object (got ${describe(value)})`,
    );
  }
  const options = value as Record<string, unknown>;
  if (options.logLevel !== undefined && !isLogLevel(options.logLevel)) {
    throw new PierError(
      'OPTIONS_INVALID',
      `createServer: logLevel must be debug, info, warn or error (got ${describe(options.logLevel)})`,
    );
  }
  if (options.handleSignals !== undefined && typeof options.handleSignals !== 'boolean') {
    throw new PierError(
      'OPTIONS_INVALID',
      `createServer: handleSignals must be a boolean (got ${describe(options.handleSignals)})`,
    );
  }
  const timeout = options.closeHookTimeoutMs;
  if (
    timeout !== undefined &&
    !(typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0 && timeout <= MAX_TIMEOUT_MS)
  ) {
    throw new PierError(
      'OPTIONS_INVALID',
      `createServer: closeHookTimeoutMs must be a number of milliseconds > 0 and ≤ ${MAX_TIMEOUT_MS} (got ${describe(timeout)})`,
    );
  }
  if (options.logStream !== undefined && typeof (options.logStream as LogStream).write !== 'function') {
    throw new PierError('OPTIONS_INVALID', 'createServer: logStream must have a write(chunk) method');
  }
  if (options.plugins !== undefined) {
    return {
      ...options,
      plugins: validatePlugins(options.plugins, 'createServer options'),
    } as CreateServerOptions;
  }
  return options as CreateServerOptions;
}
