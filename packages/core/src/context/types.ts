// What handlers receive as their last argument: the types. The engine builds them (handler-context.ts).
import type {
  AuthInfo,
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  CreateMessageResultWithTools,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  Implementation,
  ListRootsResult,
  LoggingLevel,
} from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';

/** Tells subscribed clients that a resource changed; what a context needs of core's subscriptions. */
export interface ResourceNotifier {
  notify(uri: string): Promise<void>;
}

/**
 * What every tool, resource and prompt method receives as its last argument: the request being
 * served, and the ways back to the client.
 */
export interface RequestContext {
  /** Aborted when the client cancels the request or the connection goes away. */
  readonly signal: AbortSignal;
  /** JSON-RPC id of the request. */
  readonly requestId: string | number;
  /** The transport's session id, when it has sessions (sessionful HTTP). */
  readonly sessionId: string | undefined;
  /** The server's stderr logger, scoped to the tool, resource or prompt. */
  readonly logger: Logger;
  /**
   * Who is calling, as the HTTP transport's authenticator (`@pier/plugin-auth`) established it;
   * `undefined` without one, and on stdio.
   */
  readonly auth: AuthInfo | undefined;
  /** `modern` (2026-07-28) or `legacy` (a 2025 revision): the era the request is served in. */
  readonly era: 'modern' | 'legacy';
  /** The protocol revision the request is served at, such as `2026-07-28` or `2025-11-25`. */
  readonly protocolVersion: string;
  /** The client, as the request (2026-07-28) or `initialize` (2025) describes it, when it did. */
  readonly client: {
    readonly info: Implementation | undefined;
    readonly capabilities: ClientCapabilities | undefined;
  };
  /** A header of the HTTP request (case-insensitive); `undefined` off HTTP or when absent. */
  header(name: string): string | undefined;
  /**
   * Tells every client subscribed to `uri` that the resource changed (`notifications/resources/updated`);
   * the same as `server.notifyResourceUpdated(uri)`. Clients that did not subscribe hear nothing.
   */
  notifyResourceUpdated(uri: string): Promise<void>;
  /**
   * Whether the client declared `capability` (`sampling`, `elicitation`, `elicitation.url`, `roots`): from
   * the request itself on 2026-07-28, from `initialize` on 2025 revisions. Ask only what it can answer.
   */
  clientSupports(capability: ClientCapability): boolean;
  /**
   * Asks the user for input (`elicitation/create`): a form described by `requestedSchema`, or a URL to
   * open. Resolves with the user's `action` and, when accepted, `content` (checked against the schema).
   * On 2026-07-28 the request is answered `input_required` and this handler runs again from the top with
   * the answer (see "Asking the client" in the README); on a 2025 connection the client gets a real
   * request, on the stream of the call that asks. Rejects with a {@link MissingClientCapabilityError} when
   * the client did not declare elicitation, and a `PierError` `CLIENT_REQUEST_UNAVAILABLE` when nothing
   * reaches the client (stateless 2025-era HTTP).
   */
  elicit(request: ElicitationRequest, options?: ClientRequestOptions): Promise<ElicitationResult>;
  /** Asks the client's model for a completion (`sampling/createMessage`); otherwise like {@link elicit}. */
  sample(request: SamplingRequest, options?: ClientRequestOptions): Promise<SamplingResult>;
  /** Asks the client for its roots (`roots/list`); otherwise like {@link elicit}. */
  listRoots(options?: ClientRequestOptions): Promise<ListRootsResult>;
  /**
   * Runs `fn` once per request, even when the handler runs again for an input round: a later round gets
   * the first run's result. The result travels in the signed (not encrypted) request state, so it must be
   * JSON and hold no secret. On 2025 revisions and outside input rounds it simply calls `fn`.
   */
  once<T>(key: string, fn: () => T | Promise<T>): Promise<T>;
}

/** A capability a client may declare, for {@link RequestContext.clientSupports}. */
export type ClientCapability = 'sampling' | 'elicitation' | 'elicitation.url' | 'roots';

/** Options of {@link ToolContext.reportProgress}. */
export interface ProgressOptions {
  /** The value `progress` reaches when the work is done, when known. */
  readonly total?: number;
  /** A short human-readable status. */
  readonly message?: string;
}

/** What {@link ToolContext.sample} sends: the parameters of `sampling/createMessage`. */
export type SamplingRequest = CreateMessageRequestParams;
/** What {@link ToolContext.sample} resolves with: the client's (model's) message. */
export type SamplingResult = CreateMessageResult | CreateMessageResultWithTools;
/** What {@link ToolContext.elicit} sends: a form (`message` + `requestedSchema`) or a URL to open. */
export type ElicitationRequest = ElicitRequestFormParams | ElicitRequestURLParams;
/** What {@link ToolContext.elicit} resolves with: `action` (`accept`, `decline`, `cancel`) and `content`. */
export type ElicitationResult = ElicitResult;

/** Options of a question for the client ({@link RequestContext.elicit}, `sample`, `listRoots`). */
export interface ClientRequestOptions {
  /** How long a 2025 connection waits for the client's answer. Default 60 s. */
  readonly timeoutMs?: number;
  /**
   * The question's key in a 2026-07-28 `input_required` result (`inputRequests`), unique within the
   * request. Default: by call order, `elicit-0`, `elicit-1`… per kind, so a handler that asks in a
   * different order from one run to the next must name its keys.
   */
  readonly key?: string;
  /**
   * In a tool declared with `task`: ask on the `tools/call` request itself (an `input_required` result),
   * before the task is created, instead of moving the task to `input_required`. Asks with it must come
   * before the tool's first other wait. Ignored elsewhere.
   */
  readonly beforeTask?: boolean;
}

/** The context a tool method receives as its second argument. */
export interface ToolContext extends RequestContext {
  /**
   * Sends `notifications/progress` for this call. Does nothing when the client did not ask for
   * progress (no `progressToken`), so a tool may always call it. `progress` should grow with each call.
   */
  reportProgress(progress: number, options?: ProgressOptions): Promise<void>;
  /**
   * Sends a log message to the client (`notifications/message`), filtered by the level the client set
   * (`logging/setLevel` on 2025 revisions, the request's `logLevel` on 2026-07-28). This is the MCP
   * client's log, not the server's stderr: use `logger` for operators.
   */
  sendLog(level: LoggingLevel, data: unknown): Promise<void>;
  /**
   * Ends the SSE stream that is to carry this call's answer, before the answer, so that the client
   * reconnects (`GET` with `Last-Event-ID`) and receives it there: SSE polling (SEP-1699), for long
   * calls that should not hold a connection open. Returns `false` and does nothing where the stream
   * could not be resumed (stdio, stateless HTTP, sessions without `resumability`, clients before
   * 2025-11-25).
   */
  closeStream(): boolean;
}

/** The context a resource method receives as its second argument. */
export interface ResourceContext extends RequestContext {
  /** The values a `uriTemplate` matched, by variable name; empty for a fixed `uri`. */
  readonly variables: Readonly<Record<string, string | string[]>>;
}

/** The context a prompt method receives as its second argument. */
export interface PromptContext extends RequestContext {}

/** What a task run changes in the context its handler receives (see extensions/tasks.ts). */
export interface ContextOverrides {
  readonly signal: AbortSignal;
  readonly reportProgress: ToolContext['reportProgress'];
  readonly sendLog: ToolContext['sendLog'];
  readonly closeStream: ToolContext['closeStream'];
}
