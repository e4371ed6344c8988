// createServer: a declaration plus its plugins → a server that listens and closes.
import { InMemoryServerEventBus, type ServerCapabilities } from '@modelcontextprotocol/server';
import { DEFAULT_MAX_ROUNDS } from '../context/input-required.js';
import { classDeclaration } from '../declaring/decorators.js';
import { Declarations } from '../declaring/gather.js';
import type { ServerDeclaration } from '../declaring/server-declaration.js';
import { validatePlugins, validateServerDeclaration } from '../declaring/validate.js';
import { Catalog } from '../engine/catalog.js';
import { Engine } from '../engine/engine.js';
import { defineCompletion } from '../engine/methods/completion.js';
import { defineListen } from '../engine/methods/listen.js';
import { definePrompts } from '../engine/methods/prompts.js';
import { defineResources } from '../engine/methods/resources.js';
import { defineSession } from '../engine/methods/session.js';
import { defineTools } from '../engine/methods/tools.js';
import { type Middleware, type MiddlewareMatch, middlewareEntry } from '../engine/middleware.js';
import { RequestStateCodec } from '../engine/modern/request-state.js';
import { type RequestStateKeys, RotatingRequestStateCodec } from '../engine/modern/request-state-keys.js';
import { Rounds } from '../engine/rounds.js';
import { utf8Length } from '../engine/runtime.js';
import { describeValue, MAX_TIMER_MS, messageOf, OptionIssues, optionsError, PierError } from '../errors.js';
import { appsCapability } from '../extensions/apps.js';
import {
  SKILL_URI_PREFIX,
  type SkillCatalogChanges,
  Skills,
  type SkillsOption,
  validateSkillsOption,
} from '../extensions/skills.js';
import { TASKS_EXTENSION_ID, Tasks, type TasksOptions } from '../extensions/tasks.js';
import { createLogger, isLogLevel, type Logger, type LogLevel, type LogStream } from '../logger.js';
import type { HttpAuthenticator, HttpRoute, ObservedStream, PierPlugin, ServerInfo } from '../plugins/api.js';
import { streamReporter, taskStatusReporter } from '../plugins/observe.js';
import { setUpPlugin } from '../plugins/setup.js';
import { InMemoryTaskStore } from '../stores/task-store.js';
import type {
  CloseReason,
  EventBus,
  ListenResult,
  PierTransport,
  RunningTransport,
  TransportHost,
} from '../transports/host.js';
import type { StdioListenOptions } from '../transports/stdio.js';
import { type CloseHook, CloseHooks, DEFAULT_CLOSE_HOOK_TIMEOUT_MS } from './close-hooks.js';
import { Lifecycle, type LifecycleListener, type LifecycleState } from './lifecycle.js';
import { type ShutdownSignal, watchSignals } from './signals.js';
import { ResourceUpdates } from './subscriptions.js';

/**
 * `listen({ transport: 'streamable-http', port, … })`: a shortcut that loads `@pier/transport-http` and
 * passes the other options to its `httpTransport()`, which validates and documents them. Importing
 * `httpTransport` yourself gives the same server with typed options.
 */
export interface StreamableHttpListenOptions {
  readonly transport: 'streamable-http';
  readonly host?: string;
  readonly port?: number;
  readonly [option: string]: unknown;
}

/**
 * Options of `listen()`: nothing (or `transport: 'stdio'`) for stdio, or the `'streamable-http'` shortcut.
 * The other shape of `listen()` is a transport object itself: `listen(httpTransport(options))`.
 */
export type ListenOptions = StdioListenOptions | StreamableHttpListenOptions;

/** The transports `listen()` knows by name. */
const TRANSPORT_NAMES = ['stdio', 'streamable-http'] as const;

/** `requestState` option of {@link createServer}: how input-required state is signed. */
export interface RequestStateOptions {
  /**
   * The HMAC key that signs `requestState`, at least 32 bytes (a string counts its UTF-8 bytes). Every
   * replica of one server needs the same key, so that a round signed by one is accepted by the next: load
   * it from configuration as a secret. Default: a random key per process, good for one process only.
   */
  readonly key?: string | Uint8Array;
  /**
   * Instead of `key`: where the replicas read their shared keys from, so that they rotate together
   * (`@pier/redis`'s `redisRequestStateKeys`). New states are signed with the current key; a state
   * verifies with the current or the previous one. Read on first use, at most 5 s old after that, and
   * again whenever a state fails to verify, so a replica notices a rotation at once.
   */
  readonly keys?: RequestStateKeys;
  /** How long a client has to answer before the state expires. Default 600 s. */
  readonly ttlSeconds?: number;
  /** Input rounds one request may take. Default 8. */
  readonly maxRounds?: number;
}
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
   * Items per page of `tools/list`, `prompts/list` and `resources/templates/list`: clients follow
   * `nextCursor`. Default: whole lists.
   */
  readonly pageSize?: number;
  /**
   * How long the close hooks (`onClose`) may take together before the close goes on without them.
   * Default 10 000 ms.
   */
  readonly closeHookTimeoutMs?: number;
  /**
   * Carries change events (resource updates, list changes) to every connection. Default: in memory, for
   * one process; several replicas share one backed by a broker (`@pier/redis`).
   */
  readonly eventBus?: EventBus;
  /** How input-required `requestState` is signed (key, expiry, rounds). See {@link RequestStateOptions}. */
  readonly requestState?: RequestStateOptions;
  /**
   * Skills the server serves (the `io.modelcontextprotocol/skills` extension): a folder of skill folders,
   * a `SkillFiles` adapter or a `SkillSource`. Files are loaded by `listen()` (or `reloadSkills()`).
   */
  readonly skills?: SkillsOption;
  /**
   * Where tool tasks (`@Tool({ task })`, the `io.modelcontextprotocol/tasks` extension) are kept and for how
   * long: `store` (default in memory, one process; `@pier/redis` for replicas), `ttlMs`, `pollIntervalMs`,
   * `leaseMs` (how soon a task whose process died reads as failed).
   */
  readonly tasks?: TasksOptions;
}

/** Options of {@link PierServer.close}. */
export interface CloseOptions {
  /** How long the transport keeps serving new requests after draining began. HTTP default: 0 on `close()`. */
  readonly drainDelayMs?: number;
}

/**
 * A server made by {@link createServer}. It is also a {@link TransportHost}, so it can be handed to
 * a transport of your own.
 */
export interface PierServer extends TransportHost {
  /**
   * Adds a middleware to the request engine, after the plugins' own: `match` is a method (`tools/call`), a
   * list of methods, or `*`. It runs around every matching request, on every transport and in both eras:
   * it can refuse the request (`RequestRefusedError`), change its arguments, change or replace its result,
   * and time it. Only before `listen()`.
   *
   * @example
   * ```ts
   * server.use('tools/call', async (ctx, next) => {
   *   const started = performance.now();
   *   try { return await next(); } finally { ctx.logger.info('call', { tool: ctx.name, ms: performance.now() - started }); }
   * });
   * ```
   */
  use(match: MiddlewareMatch, middleware: Middleware): this;
  /** Where the server listens, once `listen()` resolved. */
  readonly address: ListenResult | undefined;
  /**
   * Two shapes: options naming a transport (`listen()` or `listen({ transport: 'stdio' })` for stdio,
   * `listen({ transport: 'streamable-http', port })` for HTTP), or a transport object
   * (`listen(httpTransport({ port }))`). Rejects with a
   * {@link PierError} on misuse.
   */
  listen(options?: ListenOptions | PierTransport): Promise<ListenResult>;
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
  /**
   * Calls `listener(uri)` on every resource update the server hears on its event bus (its own
   * `notifyResourceUpdated`, and other replicas' on a shared bus). Returns the function that stops it; a
   * listener that throws is logged and stops no one.
   */
  onResourceUpdated(listener: (uri: string) => void): () => void;
  /**
   * Scans the `skills` folder (or `SkillFiles`) again and serves the new catalog; the first call loads it.
   * When the list of skills changed, every client hears `notifications/resources/list_changed` (through
   * the event bus). Rejects with `OPTIONS_INVALID` when the server has no `skills`, or they fail to load.
   */
  reloadSkills(): Promise<SkillCatalogChanges>;
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
  readonly events: EventBus;
  readonly authenticator: HttpAuthenticator | undefined;
  readonly reportStream?: (stream: ObservedStream) => () => void;
  readonly #lifecycle: Lifecycle;
  readonly #updates: ResourceUpdates;
  readonly engine: Engine;
  readonly #skills: Skills | undefined;
  readonly #tasks: Tasks | undefined;
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
    this.events =
      options.eventBus ??
      new InMemoryServerEventBus((error) =>
        this.logger.warn('an event listener failed', { error: messageOf(error) }),
      );
    this.#updates = new ResourceUpdates(this.logger, this.events);
    const declarations = new Declarations();
    for (const tool of declaration.tools ?? []) declarations.addTool(tool, source);
    for (const resource of declaration.resources ?? []) declarations.addResource(resource, source);
    for (const prompt of declaration.prompts ?? []) declarations.addPrompt(prompt, source);
    const pluginHost = {
      info: this.info,
      logger: this.logger,
      lifecycle: this.#lifecycle,
      declarations,
      notifier: this.#updates,
      closeHooks: this.#closeHooks,
    };
    const plugins = allPlugins(declaration.plugins ?? [], options.plugins ?? [], source);
    for (const plugin of plugins) setUpPlugin(plugin, pluginHost);
    if (options.skills !== undefined) assertNoSkillUris(declarations);
    this.#skills =
      options.skills === undefined
        ? undefined
        : new Skills(options.skills, this.logger.child('skills'), () =>
            this.#updates.publish({ kind: 'resources_list_changed' }),
          );
    this.routes = declarations.routes;
    this.authenticator = declarations.authenticator;
    const usesTasks = declarations.tools.some(({ declaration: tool }) => (tool.task ?? 'never') !== 'never');
    this.#tasks = usesTasks
      ? new Tasks(
          options.tasks?.store ?? new InMemoryTaskStore(),
          options.tasks ?? {},
          this.logger.child('tasks'),
          taskStatusReporter(declarations.observers, this.logger),
        )
      : undefined;
    const requestState = options.requestState ?? {};
    const capabilities: ServerCapabilities[] = [...declarations.capabilities];
    // Advertised only when a tool runs as a task (SEP-2663), or skills are served (SEP-2640).
    if (this.#tasks !== undefined) capabilities.push({ extensions: { [TASKS_EXTENSION_ID]: {} } });
    if (this.#skills !== undefined) capabilities.push(this.#skills.capabilities as ServerCapabilities);
    const apps = appsCapability(declarations);
    if (apps !== undefined) capabilities.push(apps);
    this.engine = new Engine({
      info: {
        ...this.info,
        ...(declaration.title !== undefined && { title: declaration.title }),
        ...(declaration.description !== undefined && { description: declaration.description }),
        ...(declaration.websiteUrl !== undefined && { websiteUrl: declaration.websiteUrl }),
        ...(declaration.icons !== undefined && { icons: declaration.icons }),
      },
      instructions: declaration.instructions,
      meta: declaration._meta,
      logger: this.logger,
      catalog: new Catalog(declarations),
      authenticator: this.authenticator,
      observers: declarations.observers,
      middleware: declarations.middleware,
      capabilities,
      pageSize: options.pageSize,
    });
    // Undefined key: the codec makes a random one on first use. A source of keys: they can rotate.
    const codec =
      requestState.keys === undefined
        ? new RequestStateCodec({ key: requestState.key, ttlSeconds: requestState.ttlSeconds })
        : new RotatingRequestStateCodec({
            keys: requestState.keys,
            ttlSeconds: requestState.ttlSeconds,
            logger: this.logger,
          });
    const rounds = new Rounds(codec, requestState.maxRounds ?? DEFAULT_MAX_ROUNDS);
    defineSession(this.engine);
    defineTools(this.engine, { rounds, notifier: this.#updates, tasks: this.#tasks });
    definePrompts(this.engine, rounds, this.#updates);
    defineResources(
      this.engine,
      rounds,
      this.#updates,
      this.#skills === undefined ? [] : [this.#skills.define(this.engine)],
    );
    defineCompletion(this.engine);
    defineListen(this.engine, this.#updates);
    this.#tasks?.define(this.engine);
    for (const [method, { handler, eras, source: owner }] of declarations.methods) {
      if (this.engine.serves(method)) {
        throw new PierError('PLUGIN_INVALID', `${owner} serves ${method}, which the server serves itself`);
      }
      this.engine.define(method, { eras, run: (call) => handler(call) as Record<string, unknown> });
    }
    this.#updates.attach(this.engine);
    const lifecycle = this.#lifecycle;
    const reportStream = streamReporter(declarations.observers, this.logger);
    this.#host = Object.freeze({
      info: this.info,
      logger: this.logger,
      routes: this.routes,
      get state() {
        return lifecycle.state;
      },
      onStateChange: (listener: LifecycleListener) => lifecycle.subscribe(listener),
      engine: this.engine,
      events: this.events,
      authenticator: this.authenticator,
      ...(reportStream !== undefined && { reportStream }),
    });
    if (reportStream !== undefined) this.reportStream = reportStream;
    if (
      requestState.key === undefined &&
      requestState.keys === undefined &&
      declarations.tools.length + declarations.prompts.length > 0
    ) {
      this.logger.debug(
        'input-required state is signed with a random per-process key; replicas need requestState.key',
      );
    }
    this.logger.debug('created', {
      plugins: plugins.map((p) => p.name).join(',') || undefined,
      routes: this.routes.length,
    });
  }

  use(match: MiddlewareMatch, middleware: Middleware): this {
    if (this.#listening !== undefined || this.#closing !== undefined) {
      throw new PierError('OPTIONS_INVALID', 'use: add middleware before listen()');
    }
    this.engine.use(middlewareEntry(match, middleware, 'the server', 'use'));
    return this;
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
    return this.#updates.notify(uri);
  }

  async reloadSkills(): Promise<SkillCatalogChanges> {
    if (this.#skills === undefined) {
      throw new PierError('OPTIONS_INVALID', 'reloadSkills: this server has no skills (createServer option)');
    }
    return this.#skills.reload();
  }

  onClose(hook: CloseHook): () => void {
    return this.#closeHooks.add(hook, this.logger, 'onClose');
  }

  onResourceUpdated(listener: (uri: string) => void): () => void {
    return this.events.subscribe((event) => {
      if (event.kind !== 'resource_updated') return;
      try {
        listener(event.uri);
      } catch (error) {
        this.logger.warn('resource update not forwarded', { uri: event.uri, error: messageOf(error) });
      }
    });
  }

  async listen(options: ListenOptions | PierTransport = {}): Promise<ListenResult> {
    if (typeof options !== 'object' || options === null) {
      throw new PierError(
        'OPTIONS_INVALID',
        `listen: options must be an object (got ${describeValue(options)})`,
      );
    }
    if (!isTransport(options)) {
      const transport = options.transport ?? 'stdio';
      if (isTransport(transport)) {
        throw new PierError(
          'UNKNOWN_TRANSPORT',
          'listen: pass a transport object itself, as in listen(httpTransport({ port })), not inside { transport }',
        );
      }
      if (!(TRANSPORT_NAMES as readonly unknown[]).includes(transport)) {
        throw new PierError(
          'UNKNOWN_TRANSPORT',
          `listen: unknown transport ${describeValue(transport)}; valid transports are ${TRANSPORT_NAMES.map((t) => `'${t}'`).join(', ')}`,
        );
      }
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
          `close: drainDelayMs must be a number ≥ 0 (got ${describeValue(drainDelayMs)})`,
        ),
      );
    }
    this.#closing = this.#close('close', drainDelayMs);
    return this.#closing;
  }

  async #start(options: ListenOptions | PierTransport): Promise<ListenResult> {
    await this.#skills?.load();
    if (this.#handleSignals) {
      this.#unwatchSignals = watchSignals({
        logger: this.logger,
        closeOnSignal: (signal) => this.#closeOnSignal(signal),
      });
    }
    let running: RunningTransport;
    if (isTransport(options)) {
      running = await options.start(this.#host);
    } else if (options.transport === 'streamable-http') {
      const { transport: _, ...httpOptions } = options as StreamableHttpListenOptions;
      // Loaded here, like stdio below: a stdio server never loads this module.
      const { loadHttpTransport } = await import('../transports/http-loader.js');
      running = await (await loadHttpTransport(httpOptions)).start(this.#host);
    } else {
      const streams = options as StdioListenOptions;
      if ((streams.stdin === undefined || streams.stdout === undefined) && !hasStdio()) {
        throw new PierError(
          'TRANSPORT_UNAVAILABLE',
          'listen: stdio needs a process with stdin and stdout, which this runtime (such as Cloudflare Workers) ' +
            'does not have; serve HTTP with createFetchHandler from @pier/transport-http/fetch',
        );
      }
      // Loaded here: an HTTP server never loads the SDK's stdio transport.
      const { startStdioTransport } = await import('../transports/stdio.js');
      running = await startStdioTransport(this.#host, options as StdioListenOptions, () => {
        this.logger.info('stdin ended: closing');
        this.close().catch((error) => this.logger.error('close failed', { error: messageOf(error) }));
      });
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
      // Tasks first: the runs they stop save their final status through the task store, which a close
      // hook may close. Bounded (TASK_CLOSE_SAVE_MS), and never throws.
      await this.#tasks?.close();
      // The hooks never throw (failures are logged), so the transport's error, if any, goes on.
      this.#closeHooksClean = await this.#closeHooks.run(this.#closeHookTimeoutMs);
      this.engine.close();
      this.#updates.close();
      this.#lifecycle.advance('closed');
      this.#unwatchSignals?.();
      this.#unwatchSignals = undefined;
      this.logger.info('closed');
    }
  }
}

/** Refuses a resource of the server under `skill://`, which the skills option serves. */
function assertNoSkillUris(declarations: Declarations): void {
  for (const { declaration } of declarations.resources) {
    const uri = (declaration.uri ?? declaration.uriTemplate) as string;
    if (uri.startsWith(SKILL_URI_PREFIX)) {
      throw new PierError(
        'DUPLICATE_NAME',
        `createServer: resource "${declaration.name}" uses ${SKILL_URI_PREFIX}, which the skills option serves`,
      );
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
    // A template's `list` and `complete` callbacks read the instance's state too.
    resources: (declaration.resources ?? []).map((resource) => {
      const withHandler = bound(resource);
      if (resource.uriTemplate === undefined) return withHandler;
      const { list, complete } = resource;
      return {
        ...withHandler,
        ...(typeof list === 'function' && { list: list.bind(instance) }),
        ...(complete !== undefined && {
          complete: Object.fromEntries(
            Object.entries(complete).map(([name, completer]) => [name, completer.bind(instance)]),
          ),
        }),
      };
    }),
    prompts: (declaration.prompts ?? []).map(bound),
  };
}

function serverOptions(value: unknown): CreateServerOptions {
  if (value === undefined) return {};
  const issues = new OptionIssues('createServer');
  if (typeof value !== 'object' || value === null) {
    issues.expect('options', 'an object', value);
    issues.throwNow(optionsError);
  }
  const options = value as Record<string, unknown>;
  if (options.logLevel !== undefined && !isLogLevel(options.logLevel)) {
    issues.expect('logLevel', 'debug, info, warn or error', options.logLevel);
  }
  if (options.handleSignals !== undefined && typeof options.handleSignals !== 'boolean') {
    issues.expect('handleSignals', 'a boolean', options.handleSignals);
  }
  const timeout = options.closeHookTimeoutMs;
  if (
    timeout !== undefined &&
    !(typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0 && timeout <= MAX_TIMER_MS)
  ) {
    issues.expect('closeHookTimeoutMs', `a number of milliseconds > 0 and ≤ ${MAX_TIMER_MS}`, timeout);
  }
  // Each checker is called only for an option that is set: a function V8 never runs is never compiled.
  if (options.eventBus !== undefined) checkEventBus(options.eventBus, issues);
  if (options.requestState !== undefined) checkRequestState(options.requestState, issues);
  if (options.tasks !== undefined) checkTasks(options.tasks, issues);
  const pageSize = options.pageSize;
  if (pageSize !== undefined && !(Number.isInteger(pageSize) && (pageSize as number) > 0)) {
    issues.expect('pageSize', 'a whole number > 0', pageSize);
  }
  if (options.logStream !== undefined && typeof (options.logStream as LogStream).write !== 'function') {
    issues.add('logStream must have a write(chunk) method');
  }
  issues.throwIfAny(optionsError);
  if (options.skills !== undefined) validateSkillsOption(options.skills);
  if (options.plugins !== undefined) {
    return {
      ...options,
      plugins: validatePlugins(options.plugins, 'createServer options'),
    } as CreateServerOptions;
  }
  return options as CreateServerOptions;
}

function isTransport(value: unknown): value is PierTransport {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<PierTransport>).start === 'function' &&
    typeof (value as Partial<PierTransport>).name === 'string'
  );
}

function checkEventBus(bus: unknown, issues: OptionIssues): void {
  const { publish, subscribe, flush } = (bus ?? {}) as Partial<EventBus>;
  if (typeof publish !== 'function' || typeof subscribe !== 'function') {
    issues.add(
      `eventBus must have publish(event) and subscribe(listener) methods (got ${describeValue(bus)})`,
    );
  } else if (flush !== undefined && typeof flush !== 'function') {
    issues.expect('eventBus.flush', 'a function when given', flush);
  }
}

/** Checks `requestState` without ever quoting the key. */
function checkRequestState(value: unknown, issues: OptionIssues): void {
  if (typeof value !== 'object' || value === null) {
    issues.expect('requestState', 'an object', value);
    return;
  }
  const { key, keys, ttlSeconds, maxRounds } = value as Record<string, unknown>;
  if (keys !== undefined) {
    if (key !== undefined) issues.add('requestState: give key or keys, not both');
    if (typeof (keys as Partial<RequestStateKeys> | null)?.read !== 'function') {
      issues.expect('requestState.keys', 'an object with a read() method', keys);
    }
  }
  if (key !== undefined) {
    const bytes = typeof key === 'string' ? utf8Length(key) : key instanceof Uint8Array ? key.byteLength : -1;
    if (bytes < 0) issues.add('requestState.key must be a string or a Uint8Array of at least 32 bytes');
    else if (bytes < 32) {
      issues.add(
        `requestState.key must be at least 32 bytes long (it has ${bytes}); generate one with: openssl rand -base64 48`,
      );
    }
  }
  if (ttlSeconds !== undefined && !(Number.isInteger(ttlSeconds) && (ttlSeconds as number) > 0)) {
    issues.expect('requestState.ttlSeconds', 'a whole number > 0', ttlSeconds);
  }
  if (maxRounds !== undefined && !(Number.isInteger(maxRounds) && (maxRounds as number) > 0)) {
    issues.expect('requestState.maxRounds', 'a whole number > 0', maxRounds);
  }
}

function checkTasks(value: unknown, issues: OptionIssues): void {
  if (typeof value !== 'object' || value === null) {
    issues.expect('tasks', 'an object', value);
    return;
  }
  const { store, ttlMs, pollIntervalMs, leaseMs } = value as Record<string, unknown>;
  if (store !== undefined) {
    const methods = ['create', 'get', 'update', 'delete'] as const;
    if (methods.some((method) => typeof (store as Record<string, unknown> | null)?.[method] !== 'function')) {
      issues.add(
        `tasks.store must have create, get, update and delete methods (got ${describeValue(store)})`,
      );
    }
  }
  for (const [name, ms] of [
    ['ttlMs', ttlMs],
    ['pollIntervalMs', pollIntervalMs],
  ] as const) {
    if (ms !== undefined && !(Number.isInteger(ms) && (ms as number) > 0 && (ms as number) <= MAX_TIMER_MS)) {
      issues.expect(`tasks.${name}`, `a whole number of milliseconds > 0 and ≤ ${MAX_TIMER_MS}`, ms);
    }
  }
  if (
    leaseMs !== undefined &&
    !(Number.isInteger(leaseMs) && (leaseMs as number) >= 0 && (leaseMs as number) <= MAX_TIMER_MS)
  ) {
    issues.expect(
      'tasks.leaseMs',
      `a whole number of milliseconds ≥ 0 (0: no lease) and ≤ ${MAX_TIMER_MS}`,
      leaseMs,
    );
  }
}

/** Whether the runtime has a process with standard streams (not Workers, even with `nodejs_compat`). */
function hasStdio(): boolean {
  const agent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
  const proc = (globalThis as { process?: { stdin?: unknown; stdout?: unknown } }).process;
  return agent !== 'Cloudflare-Workers' && proc?.stdin !== undefined && proc.stdout !== undefined;
}
