// The plugin contract: what a plugin is, and what it can do through its context. Types only: nothing here
// pulls HTTP code into core. The transport contract is in transports/host.ts.
import type { AuthInfo, ServerCapabilities } from '@modelcontextprotocol/server';
import type { PromptDeclaration, ResourceDeclaration, ToolDeclaration } from '../declaring/model.js';
import type { Middleware, MiddlewareContext, MiddlewareMatch } from '../engine/middleware.js';
import type { CloseHook } from '../server/close-hooks.js';

/** Answers a request of a method a plugin serves (`PluginContext.addMethod`). */
export type MethodHandler = (
  ctx: MiddlewareContext,
) => Readonly<Record<string, unknown>> | Promise<Readonly<Record<string, unknown>>>;

import type { Logger } from '../logger.js';
import type { LifecycleListener, LifecycleState } from '../server/lifecycle.js';
import type { TaskStatus } from '../stores/task-store.js';

/**
 * An HTTP route a plugin adds; every HTTP transport serves it before its MCP endpoint, on every runtime.
 * Its handler is web-standard: a `Request` in, a `Response` out (synchronously when it can).
 *
 * @example
 * ```ts
 * ctx.addRoute({ method: 'GET', path: '/version', handler: () => Response.json({ version: '1.2.0' }) });
 * ```
 */
export interface HttpRoute {
  /** Upper-case HTTP method, such as `GET`. A `GET` route also answers `HEAD` (the transport drops the body). */
  readonly method: string;
  /** Exact path, such as `/health`; the query string is ignored when matching. */
  readonly path: string;
  readonly handler: (request: Request) => Response | Promise<Response>;
  /**
   * The same route answered from the request's head, without a web `Request` or `Response`: node transports
   * call it instead of `handler` when it is set. In a Node process the first web `Request` or `Response`
   * loads the runtime's fetch implementation (undici): about 300 M instructions on Node 20 and 450 M on
   * Node 24, more than the rest of a server's start, and a readiness probe is often its first request.
   * It must answer as `handler` does; web runtimes (the fetch handler) always call `handler`.
   */
  readonly plain?: (head: HttpRequestHead) => PlainHttpAnswer | Promise<PlainHttpAnswer>;
}

/** A plugin route's answer without web objects ({@link HttpRoute.plain}). */
export interface PlainHttpAnswer {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Absent for an empty body; a `HEAD` request gets the headers only, whatever is here. */
  readonly body?: string;
}

/**
 * What an {@link HttpAuthenticator} reads of a request, the same on every runtime and framework: no body, no
 * copy of the headers (a node transport reads its own request's on demand).
 */
export interface HttpRequestHead {
  /** Upper-case, such as `POST`. */
  readonly method: string;
  /** The request target as sent: the path and query string, such as `/mcp?x=1`. */
  readonly url: string;
  /**
   * A header by its lower-case name; `undefined` when absent. A header sent more than once reads as its
   * values joined with `, `, as HTTP folds them (so a repeated `Authorization` shows as one with a comma).
   */
  header(name: string): string | undefined;
  /**
   * Where the application mounted the handler that serves this request (`/api` for Express's
   * `app.use('/api', …)` or a handler's `basePath`); absent or `''` on Pier's own listener. Plugin routes are
   * served below it, so a URL that points a client at one (such as `resource_metadata`) must include it.
   */
  readonly basePath?: string;
}

/** Identity of the server a plugin is attached to. */
export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

/**
 * A plugin: a plain object with a `name` and a synchronous `setup`, run once by `createServer`.
 * What it registers through the context is validated there (duplicate names and routes are errors).
 */
export interface PierPlugin {
  readonly name: string;
  setup(ctx: PluginContext): void;
}

/** What a plugin can do while it is set up, and keep using afterwards. */
export interface PluginContext {
  /** Name and version of the server the plugin is attached to. */
  readonly server: ServerInfo;
  /** The lifecycle state now (read it when you need it: it changes). */
  readonly state: LifecycleState;
  /** Subscribe to lifecycle changes; returns the unsubscribe function. */
  onStateChange(listener: LifecycleListener): () => void;
  addTool(tool: ToolDeclaration): void;
  addResource(resource: ResourceDeclaration): void;
  addPrompt(prompt: PromptDeclaration): void;
  /** Served by HTTP transports before the MCP endpoint; not served over stdio. */
  addRoute(route: HttpRoute): void;
  /** The server's stderr logger, scoped to the plugin's name. */
  readonly logger: Logger;
  /**
   * Tells every client subscribed to `uri` that the resource changed (`notifications/resources/updated`).
   * Usable at any time, during setup and after (keep `ctx` to call it when your data changes).
   */
  notifyResourceUpdated(uri: string): Promise<void>;
  /**
   * Runs `hook` once when the server closes, after the transport stopped serving and before the state
   * turns `closed` (see `PierServer.onClose`); a failure is logged under the plugin's name. Usable
   * during setup and after, until the hooks start running. Returns the function that removes the hook.
   */
  onClose(hook: CloseHook): () => void;
  /**
   * Adds a middleware to the request engine: `match` is a method (`tools/call`), a list of methods, or `*`.
   * It runs around every matching request, on every transport and in both eras; plugins' middleware runs
   * in plugin order, after the server's own. Only during setup. See `Middleware`.
   */
  use(match: MiddlewareMatch, middleware: Middleware): void;
  /**
   * Serves a request method of an extension (`io.example/things/list`), in the eras named (default both):
   * `handler` gets the request (its `params`, `auth`…) and returns the result object. Middleware runs
   * around it like any method. A method the server already serves cannot be replaced. Only during setup.
   */
  addMethod(
    method: string,
    handler: MethodHandler,
    options?: { readonly eras?: 'both' | 'modern' | 'legacy' },
  ): void;
  /**
   * Adds to the capabilities the server advertises (`initialize`, `server/discover`), merged key by key:
   * an extension a plugin serves, say `{ extensions: { 'io.example/thing': {} } }`. Only during setup.
   */
  addCapabilities(capabilities: ServerCapabilities): void;
  /**
   * Sets the authenticator HTTP transports run on the MCP endpoint, after the Host/Origin check and before
   * the body is read. One per server: a second call, from any plugin, is `PLUGIN_INVALID`. Only during setup.
   */
  setAuthenticator(authenticator: HttpAuthenticator): void;
  /**
   * Watches every request and notification the server receives, on every transport and both eras, and how
   * each request ended: what tracing and metrics plugins need. Only during setup.
   */
  observe(observer: McpObserver): void;
}

/**
 * Sees MCP traffic at the transport boundary (see {@link PluginContext.observe}). Observers cost nothing
 * when none is registered; an observer that throws is logged and skipped, never breaks a request.
 */
export interface McpObserver {
  /**
   * A request arrived. Call `dispatch()` to let it run — inside your own async context (an active tracing
   * span) if you like; it is called for you right after you return if you did not. The function you
   * return, if any, is called once with the request's outcome when its answer is sent.
   */
  onRequest?(
    request: ObservedRequest,
    dispatch: () => void,
  ): ((outcome: ObservedOutcome) => void) | undefined;
  /** A notification arrived (`notifications/initialized`, `notifications/cancelled`…). */
  onNotification?(notification: ObservedNotification): void;
  /**
   * A connection opened: a stdio connection or a 2025 HTTP session (stateless HTTP has none). The function
   * you return, if any, is called once when it closes.
   */
  onSession?(session: ObservedSession): (() => void) | undefined;
  /**
   * The server sent the client a request (`sampling/createMessage`, `elicitation/create`, `roots/list`),
   * called in the async context of the handler that asked. The function you return, if any, is called
   * once with the client's answer, or with a -32000 error if the connection closed first.
   */
  onClientRequest?(request: ObservedClientRequest): ((outcome: ObservedOutcome) => void) | undefined;
  /**
   * A long-lived HTTP stream opened: a 2026-07-28 `subscriptions/listen` stream or the GET stream of a 2025
   * session, reported by the transport. The function you return, if any, is called once when it closes.
   */
  onStream?(stream: ObservedStream): (() => void) | undefined;
  /**
   * A task changed status in this process: created (`previous` undefined), moved on (`working` →
   * `input_required` → `working` → `completed`…), or cancelled. Status changes made by another replica
   * sharing the task store are reported there, not here.
   */
  onTaskStatus?(change: ObservedTaskStatus): void;
}

/** A long-lived stream, as observers see it (see {@link McpObserver.onStream}). */
export interface ObservedStream {
  /** `listen`: a 2026-07-28 `subscriptions/listen` stream; `session`: the GET stream of a 2025 HTTP session. */
  readonly kind: 'listen' | 'session';
}

/** A task's status change, as observers see it (see {@link McpObserver.onTaskStatus}). */
export interface ObservedTaskStatus {
  readonly taskId: string;
  readonly status: TaskStatus;
  /** The status it had before; `undefined` when the task was just created. */
  readonly previous: TaskStatus | undefined;
  /** When the store forgets the task (its TTL), in milliseconds since the epoch. */
  readonly expiresAt: number;
}

/** A stdio connection or a 2025 HTTP session, as observers see it; the same object for each of its messages. */
export interface ObservedSession {
  readonly era: 'modern' | 'legacy' | undefined;
  /** The 2025 HTTP session id (`Mcp-Session-Id`); none on stdio. */
  readonly sessionId: string | undefined;
}

/** A request the server sent to the client. `params` may hold what the user typed: do not record them blindly. */
export interface ObservedClientRequest {
  readonly method: string;
  readonly id: string | number;
  readonly params: Readonly<Record<string, unknown>> | undefined;
  readonly era: 'modern' | 'legacy' | undefined;
  readonly session: ObservedSession | undefined;
}

/** A request as an observer sees it. `params` are the client's, untouched: do not record them blindly. */
export interface ObservedRequest {
  readonly method: string;
  readonly id: string | number;
  readonly params: Readonly<Record<string, unknown>> | undefined;
  /** The protocol era of the server that received it, when the transport told core. */
  readonly era: 'modern' | 'legacy' | undefined;
  /** The 2025 session id, on sessionful HTTP. */
  readonly sessionId: string | undefined;
  /** HTTP request headers (`traceparent`…), over HTTP. */
  readonly headers: Headers | undefined;
  /** Who is calling, when an authenticator ran. */
  readonly authInfo: AuthInfo | undefined;
  /** The connection or 2025 session it belongs to; none on stateless HTTP. */
  readonly session: ObservedSession | undefined;
}

/** A notification as an observer sees it. */
export interface ObservedNotification {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>> | undefined;
  readonly era: 'modern' | 'legacy' | undefined;
  /** HTTP request headers, over HTTP. */
  readonly headers: Headers | undefined;
  readonly session: ObservedSession | undefined;
}

/** How a request ended: its result, or its JSON-RPC error. */
export type ObservedOutcome =
  | { readonly result: unknown }
  | { readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } };

/**
 * Decides who is calling, for every request to the MCP endpoint of an HTTP transport (never for plugin
 * routes such as `/health`). It runs after the Host/Origin check and before the body is read, so a refused
 * request costs no body parsing. The `authInfo` it accepts reaches every handler and middleware (`ctx.auth`)
 * and the scope checks of tools, resources and prompts, on both protocol eras.
 */
export interface HttpAuthenticator {
  authenticate(request: HttpRequestHead): HttpAuthOutcome | Promise<HttpAuthOutcome>;
  /**
   * A stable key for the principal behind `authInfo` (the same user with a refreshed token gives the same
   * key). A 2025-era session remembers the key of the principal that opened it and answers any other
   * principal as if the session did not exist. Default: `authInfo.clientId`.
   */
  principalOf?(authInfo: AuthInfo): string;
  /**
   * Decides whether `authInfo` may use a tool, resource or prompt declared with `scopes` (never called for
   * one without): `undefined` lets the request through, a {@link ScopeChallenge} answers it 403
   * `insufficient_scope` before any handler runs, on both protocol eras, listing `challenge.scopes`.
   * Default: every required scope must be among `authInfo.scopes` exactly, and the challenge lists them.
   */
  scopeChallenge?(required: readonly string[], authInfo: AuthInfo): ScopeChallenge | undefined;
}

/** What a caller lacking scopes is told to ask for: the complete scope set for the `scope` parameter. */
export interface ScopeChallenge {
  readonly scopes: readonly [string, ...string[]];
  /** Human-readable, printable ASCII without `"` or `\\`. */
  readonly errorDescription?: string;
}

/** What an {@link HttpAuthenticator} decides: go on with `authInfo`, or answer with `refusal` and stop. */
export type HttpAuthOutcome = { readonly authInfo: AuthInfo } | { readonly refusal: HttpRefusal };

/** An HTTP answer that ends a request: status, headers, and a JSON body. */
export interface HttpRefusal {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON (`application/json`); omitted means no body. */
  readonly body?: unknown;
}
