// Builds SDK servers from the declarations: one per stdio connection, HTTP session or stateless request.
// Everything that does not change per server (callbacks, schemas, templates) is made once, here.
import {
  type AuthInfo,
  McpServer,
  type ScopeChallengeHandler,
  type ServerCapabilities,
  type ServerContext,
  UriTemplate,
  type Variables,
} from '@modelcontextprotocol/server';
import { clientError } from './client-errors.js';
import { type ContextDeps, requestContext, resourceContext, toolContext } from './context.js';
import type { HttpAuthenticator, ServerInfo } from './contract.js';
import type { ListedResource, ListedResources, ResourceDeclaration } from './declaration.js';
import type { Declarations } from './declarations.js';
import { directToolCalls } from './direct-calls.js';
import { describe, MissingClientCapabilityError, messageOf, PierError } from './errors.js';
import {
  type InputRound,
  isProtocolAnswer,
  type RoundState,
  refusedQuestion,
  requestTarget,
  runRound,
} from './input-required.js';
import type { Logger } from './logger.js';
import { type ObservedCalls, observeServer } from './observe.js';
import { type RequestStateKeys, rotatingRequestStateCodec, type StateCodec } from './request-state-codec.js';
import { toolErrorResult, toPromptResult, toResourceResult, toToolResult } from './results.js';
import { completionScopes, scopeChallengeFor } from './scope-check.js';
import type { ResourceUpdates } from './subscriptions.js';
import { type InvokeTool, TASKS_EXTENSION_ID, Tasks } from './tasks.js';
import type { DirectToolCalls, SdkServerOptions } from './transport-contract.js';

/** What the builder needs besides the declarations. */
export interface SdkServerBuilderOptions {
  readonly info: ServerInfo & { readonly title?: string; readonly description?: string };
  readonly instructions: string | undefined;
  readonly logger: Logger;
  readonly updates: ResourceUpdates;
  /** `key` and `keys` undefined: a random key, made when the first state is minted or checked. */
  readonly requestState: {
    readonly key: string | Uint8Array | undefined;
    readonly keys?: RequestStateKeys | undefined;
    readonly ttlSeconds?: number;
  };
  readonly maxRounds: number;
  /** Set when a tool declares `task`: serves them, and `tasks/*`. */
  readonly tasks: Tasks | undefined;
}

/** A handler call made per SDK server, knowing how to read the client's `initialize` capabilities. */
type Register = (server: McpServer, deps: (logger: Logger) => ContextDeps) => void;
type Callback = (...args: unknown[]) => Promise<never>;

const NO_VARIABLES: Variables = Object.freeze({});

/** Turns declarations into SDK servers. */
export class SdkServerBuilder {
  readonly #declarations: Declarations;
  readonly #options: SdkServerBuilderOptions;
  readonly #registrations: Register[] = [];
  readonly #capabilities: ServerCapabilities;
  #codec: StateCodec<RoundState, ServerContext> | undefined;
  readonly #verify: (state: string, ctx: ServerContext) => Promise<RoundState>;
  /** Tools declared `task: 'required'`: a call from a client without the tasks extension is refused. */
  readonly #requiredTaskTools = new Set<string>();
  /** What every server says it is (`initialize`, and the 2026-07-28 `serverInfo` stamp). */
  readonly #implementation: { readonly name: string; readonly version: string } & Readonly<
    Record<string, string>
  >;
  /**
   * Tool results computed on the direct path that only the SDK can write, by the web request the SDK
   * serves them with (see direct-calls.ts): the tool's callback answers with it instead of running it.
   */
  readonly #replays = new WeakMap<object, unknown>();
  /** What the direct path and the observed SDK servers share (see observe.ts). */
  readonly #observed: ObservedCalls = { replays: new WeakMap(), sessions: new WeakMap() };
  /** Whether a scoped resource template or prompt can be completed: `completion/complete` is then gated. */
  readonly #scopedCompletions: boolean;

  constructor(declarations: Declarations, options: SdkServerBuilderOptions) {
    this.#declarations = declarations;
    this.#options = options;
    const { info } = options;
    this.#implementation = {
      name: info.name,
      version: info.version,
      ...(info.title !== undefined && { title: info.title }),
      ...(info.description !== undefined && { description: info.description }),
    };
    // Bound to the method and the principal: a state replayed by another user, or on another method, fails
    // verification (-32602). The tool, prompt or URI and the arguments are checked against the state's
    // target once the handler's arguments are known (see input-required.ts).
    this.#verify = (state, ctx) => this.#stateCodec().verify(state, ctx);
    for (const tool of declarations.tools) this.#addTool(tool);
    for (const resource of declarations.resources) this.#addResource(resource);
    for (const prompt of declarations.prompts) this.#addPrompt(prompt);
    this.#scopedCompletions =
      declarations.resources.some(({ declaration }) => (declaration.scopes?.length ?? 0) > 0) ||
      declarations.prompts.some(({ declaration }) => (declaration.scopes?.length ?? 0) > 0);
    let capabilities: ServerCapabilities = {
      logging: {},
      ...(declarations.tools.length > 0 && { tools: { listChanged: false } }),
      ...(declarations.resources.length > 0 && { resources: { listChanged: false } }),
      ...(declarations.prompts.length > 0 && { prompts: { listChanged: false } }),
    };
    if (options.tasks !== undefined) {
      // Advertised only when a tool runs as a task (SEP-2663).
      capabilities = mergeCapabilities(capabilities, { extensions: { [TASKS_EXTENSION_ID]: {} } });
    }
    for (const extension of declarations.extensions) {
      if (extension.capabilities) capabilities = mergeCapabilities(capabilities, extension.capabilities);
    }
    this.#capabilities = capabilities;
  }

  /**
   * Made on first use: the codec reads Web Crypto, whose first use costs a cold start ≈ 1.3 % (and the
   * random key with it), and a server whose clients never go through input-required never needs either.
   */
  #stateCodec(): StateCodec<RoundState, ServerContext> {
    if (this.#codec === undefined) {
      // Signs with the current key, verifies with the current or the previous one (see request-state-codec.ts).
      this.#codec = rotatingRequestStateCodec<RoundState, ServerContext>({
        ...this.#options.requestState,
        bind: (ctx) => `${ctx.mcpReq.method}\0${this.#principal(ctx.http?.authInfo)}`,
        logger: this.#options.logger,
      });
    }
    return this.#codec;
  }

  /** A fresh SDK server with everything registered. */
  create(options: SdkServerOptions = {}): McpServer {
    const { instructions, updates, maxRounds } = this.#options;
    const declarations = this.#declarations;
    const subscribe = declarations.subscribable && options.subscriptions !== false;
    const capabilities = subscribe
      ? { ...this.#capabilities, resources: { ...this.#capabilities.resources, subscribe: true } }
      : this.#capabilities;
    const server = new McpServer(
      { ...this.#implementation },
      {
        capabilities,
        ...(instructions !== undefined && { instructions }),
        // Never send the client a request (sampling, elicitation) for a capability it did not declare:
        // the SDK then refuses at once, instead of a request the client cannot answer (or, on stateless
        // HTTP, whose answer could never come back) waiting for its timeout.
        enforceStrictCapabilities: true,
        requestState: { verify: this.#verify },
        inputRequired: { maxRounds },
      },
    );
    const initializeCapabilities = () => server.server.getClientCapabilities();
    const notifier = updates;
    const deps = (logger: Logger): ContextDeps => ({ logger, notifier, initializeCapabilities });
    for (const register of this.#registrations) register(server, deps);
    if (this.#options.tasks !== undefined) {
      this.#options.tasks.register(server, (mcp) => this.#principal(mcp.http?.authInfo));
      refuseTasklessCalls(server, this.#requiredTaskTools);
    }
    if (declarations.subscribable) updates.serve(server, declarations.uriKind);
    if (options.lifetime !== 'request') updates.connect(server, options.era);
    const context = { era: options.era };
    for (const extension of declarations.extensions) extension.setup?.(server, context);
    if (declarations.observers.length > 0) {
      observeServer(server, declarations.observers, options, this.#options.logger, this.#observed);
    }
    if (this.#scopedCompletions) {
      gateCompletions(server, (params, authInfo) =>
        scopeChallengeFor(declarations.authenticator, completionScopes(params, declarations), authInfo),
      );
    }
    return server;
  }

  /** The direct path for stateless `tools/call`, when this server allows one (see direct-calls.ts). */
  direct(): DirectToolCalls | undefined {
    return directToolCalls(
      this.#declarations,
      this.#options.logger,
      this.#implementation,
      this.#replays,
      this.#options.tasks === undefined,
      this.#observed,
    );
  }

  /**
   * `config` with the SDK's `scopeChallenge` when `scopes` are required: the SDK asks it before dispatch
   * (`createMcpHandler` for 2026-07-28, the transport for 2025 revisions) and answers 403
   * `insufficient_scope` with the challenge's scopes. Only an authenticated request is checked: without an
   * authenticator (stdio, open HTTP) there is no one to challenge.
   */
  #withScopes<C extends object>(config: C, scopes: readonly string[] | undefined): C {
    if (scopes === undefined || scopes.length === 0) return config;
    const scopeChallenge: ScopeChallengeHandler = ({ authInfo }) =>
      scopeChallengeFor(
        this.#declarations.authenticator,
        scopes,
        authInfo,
      ) as ReturnType<ScopeChallengeHandler>;
    return { ...config, scopeChallenge };
  }

  #principal(auth: AuthInfo | undefined): string {
    if (auth === undefined) return '';
    const authenticator: HttpAuthenticator | undefined = this.#declarations.authenticator;
    return authenticator?.principalOf?.(auth) ?? auth.clientId;
  }

  /**
   * Runs `handler` as one round of a 2026-07-28 request (a question answers `input_required`), or
   * straight on a 2025 one. A missing capability the handler did not catch is the protocol's -32021 on
   * 2026-07-28; on 2025 revisions it is thrown like any handler error.
   */
  async #serve<T>(
    mcp: ServerContext,
    name: string,
    args: unknown,
    handler: (round: InputRound | undefined) => Promise<T>,
  ): Promise<T | Awaited<ReturnType<typeof runRound>>> {
    if (mcp.mcpReq.envelope === undefined) return handler(undefined);
    const target = requestTarget(mcp.mcpReq.method, name, args, () => this.#principal(mcp.http?.authInfo));
    try {
      return await runRound(mcp, target, this.#stateCodec(), this.#options.maxRounds, handler);
    } catch (error) {
      const refused = error instanceof MissingClientCapabilityError ? refusedQuestion(error) : undefined;
      if (refused !== undefined) return refused;
      throw error;
    }
  }

  /** Serves a task tool's call from a client of the tasks extension (see tasks.ts). */
  async #serveTask(mcp: ServerContext, name: string, args: unknown, tasks: Tasks, invoke: InvokeTool) {
    const principal = this.#principal(mcp.http?.authInfo);
    const target = requestTarget(mcp.mcpReq.method, name, args, () => principal);
    try {
      return await tasks.call(
        mcp,
        principal,
        { target, codec: this.#stateCodec(), maxRounds: this.#options.maxRounds },
        invoke,
      );
    } catch (error) {
      const refused = error instanceof MissingClientCapabilityError ? refusedQuestion(error) : undefined;
      if (refused !== undefined) return refused;
      throw error;
    }
  }

  #addTool({ declaration: tool, config }: Declarations['tools'][number]): void {
    const logger = this.#options.logger.child(`tool:${tool.name}`);
    const handler = tool.handler as (args: unknown, ctx: unknown) => unknown;
    const hasInput = config.inputSchema !== undefined;
    const registered = this.#withScopes(config, tool.scopes);
    const mode = tool.task ?? 'never';
    const tasks = this.#options.tasks;
    // A required task from a client without the extension is refused before (see refuseTasklessCalls).
    if (mode === 'required') this.#requiredTaskTools.add(tool.name);
    const serve = (mcp: ServerContext, args: unknown, deps: ContextDeps) => {
      if (mode !== 'never' && tasks !== undefined) {
        if (Tasks.declared(mcp)) {
          return this.#serveTask(mcp, tool.name, args, tasks, async (round, overrides) =>
            toToolResult(await handler(args, { ...toolContext(mcp, deps, round), ...overrides })),
          );
        }
      }
      return this.#serve(mcp, tool.name, args, async (round) =>
        toToolResult(await handler(args, toolContext(mcp, deps, round))),
      );
    };
    const replays = this.#replays;
    this.#registrations.push((server, deps) => {
      const context = deps(logger);
      // Without an input schema the SDK calls back with the context only; Pier always passes (args, ctx).
      const callback = async (...received: unknown[]) => {
        const [args, mcp] = hasInput ? received : [{}, received[0]];
        const request = (mcp as ServerContext).http?.req;
        if (request !== undefined && replays.has(request)) {
          const replayed = replays.get(request);
          replays.delete(request);
          return replayed;
        }
        try {
          return await serve(mcp as ServerContext, args, context);
        } catch (error) {
          // Protocol answers (-32021, a forged or stale requestState) are not tool failures.
          if (isProtocolAnswer(error)) throw error;
          logger.warn('tool failed', { error: messageOf(error) });
          return toolErrorResult(error);
        }
      };
      server.registerTool(tool.name, registered, callback as Callback);
    });
  }

  #addResource({ declaration: resource, metadata, template }: Declarations['resources'][number]): void {
    const logger = this.#options.logger.child(`resource:${resource.name}`);
    const registered = this.#withScopes(metadata, resource.scopes);
    this.#registrations.push((server, deps) => {
      const context = deps(logger);
      const read = async (uri: URL, variables: Variables, mcp: ServerContext) => {
        try {
          return await this.#serve(mcp, uri.href, {}, async (round) =>
            toResourceResult(
              await resource.handler(uri, resourceContext(mcp, context, round, variables)),
              uri.href,
              resource.mimeType,
            ),
          );
        } catch (error) {
          logger.warn('resource read failed', { error: messageOf(error) });
          throw clientError(error);
        }
      };
      if (template === undefined) {
        const readFixed = (uri: URL, mcp: ServerContext) => read(uri, NO_VARIABLES, mcp);
        server.registerResource(resource.name, resource.uri as string, registered, readFixed as never);
      } else {
        server.registerResource(resource.name, template, registered, read as never);
      }
    });
  }

  #addPrompt({ declaration: prompt, argsSchema }: Declarations['prompts'][number]): void {
    const logger = this.#options.logger.child(`prompt:${prompt.name}`);
    const handler = prompt.handler as (args: unknown, ctx: unknown) => unknown;
    const config = this.#withScopes(
      {
        ...(prompt.title !== undefined && { title: prompt.title }),
        ...(prompt.description !== undefined && { description: prompt.description }),
        ...(argsSchema && { argsSchema }),
      },
      prompt.scopes,
    );
    this.#registrations.push((server, deps) => {
      const context = deps(logger);
      const callback = async (...received: unknown[]) => {
        const [values, mcp] = argsSchema ? received : [{}, received[0]];
        try {
          return await this.#serve(mcp as ServerContext, prompt.name, values, async (round) =>
            toPromptResult(
              await handler(values, requestContext(mcp as ServerContext, context, round)),
              prompt.description,
            ),
          );
        } catch (error) {
          logger.warn('prompt failed', { error: messageOf(error) });
          throw clientError(error);
        }
      };
      server.registerPrompt(prompt.name, config, callback as Callback);
    });
  }
}

/**
 * `resources/list`'s callback for a template's `list`: URIs it does not match are left out, and logged.
 * Built when the template is declared (see Declarations), with the same context every handler gets.
 */
export function templateLister(logger: Logger, updates: ResourceUpdates) {
  return (resource: ResourceDeclaration & { readonly uriTemplate: string }) => {
    const list = resource.list as NonNullable<typeof resource.list>;
    const scoped = logger.child(`resource:${resource.name}`);
    const matcher = new UriTemplate(resource.uriTemplate);
    const deps: ContextDeps = { logger: scoped, notifier: updates, initializeCapabilities: () => undefined };
    return async (mcp: ServerContext) => {
      let listed: ListedResources;
      try {
        listed = await list(requestContext(mcp, deps, undefined));
      } catch (error) {
        scoped.warn('resource list failed', { error: messageOf(error) });
        throw clientError(error);
      }
      if (!Array.isArray(listed)) {
        scoped.warn('resource list ignored: list() must return an array', { got: describe(listed) });
        return { resources: [] };
      }
      const resources = [];
      for (const entry of listed as readonly unknown[]) {
        const item = typeof entry === 'string' ? { uri: entry } : entry;
        const uri = (item as { uri?: unknown } | null)?.uri;
        if (typeof uri !== 'string' || matcher.match(uri) === null) {
          scoped.warn('listed resource left out: not a URI of the template', {
            uriTemplate: resource.uriTemplate,
            got: describe(typeof entry === 'string' ? entry : uri),
          });
          continue;
        }
        const { name, title, description, mimeType } = item as Exclude<ListedResource, string>;
        resources.push({
          uri,
          name: typeof name === 'string' && name !== '' ? name : uri,
          ...(typeof title === 'string' && { title }),
          ...(typeof description === 'string' && { description }),
          ...((mimeType ?? resource.mimeType) !== undefined && { mimeType: mimeType ?? resource.mimeType }),
        });
      }
      return { resources };
    };
  };
}

/** Extension capabilities merged into Pier's: objects merged key by key, one level deep. */
function mergeCapabilities(base: ServerCapabilities, extra: ServerCapabilities): ServerCapabilities {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = merged[key];
    merged[key] = isRecord(current) && isRecord(value) ? { ...current, ...value } : value;
  }
  return merged as ServerCapabilities;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type RequestHandler = (
  request: { readonly params?: { readonly name?: unknown } },
  ctx: ServerContext,
) => unknown;

/**
 * Refuses a `tools/call` of a required-task tool from a client without the tasks extension with the
 * protocol's -32021, before the handler runs. The SDK's tool dispatch turns anything a tool callback throws
 * into a tool error, so the check wraps the SDK's `tools/call` handler itself (an SDK internal: checked here
 * so that an SDK change fails loudly, at the first server built, rather than serving the tool).
 */
function refuseTasklessCalls(server: McpServer, required: ReadonlySet<string>): void {
  if (required.size === 0) return;
  const handlers = (server.server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  const original =
    handlers instanceof Map ? (handlers.get('tools/call') as RequestHandler | undefined) : undefined;
  if (original === undefined) {
    throw new PierError(
      'DECLARATION_INVALID',
      'tools declared task: "required" need a version of @modelcontextprotocol/server whose tools/call handler Pier can wrap',
    );
  }
  (handlers as Map<string, RequestHandler>).set('tools/call', (request, ctx) => {
    const name = request.params?.name;
    if (typeof name === 'string' && required.has(name) && !Tasks.declared(ctx)) {
      throw Tasks.missing(`tool "${name}" runs as a task, so it`);
    }
    return original(request, ctx);
  });
}

/**
 * Answers `completion/complete` for a scoped resource template or prompt as its read or get would be
 * answered: 403 `insufficient_scope` before dispatch (see scope-check.ts), on both eras. The SDK asks its
 * scope resolver only for `tools/call`, `resources/read` and `prompts/get`, and hands a completer no
 * caller, so the resolver of this server is extended (an SDK internal: checked here so that an SDK change
 * fails loudly, at the first server built, rather than leaking completions).
 */
function gateCompletions(
  server: McpServer,
  decide: (params: unknown, authInfo: AuthInfo | undefined) => ReturnType<ScopeChallengeHandler>,
): void {
  const resolver = server as unknown as { resolveScopeChallenge?: ScopeChallengeHandler };
  const original = resolver.resolveScopeChallenge;
  if (typeof original !== 'function') {
    throw new PierError(
      'DECLARATION_INVALID',
      'scoped resources or prompts need a version of @modelcontextprotocol/server whose scope resolver Pier can extend',
    );
  }
  resolver.resolveScopeChallenge = (context) =>
    context.request.method === 'completion/complete'
      ? decide(context.request.params, context.authInfo)
      : original(context);
}
