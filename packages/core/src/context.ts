// What handlers receive as their last argument, and how it is built around the SDK's context for one
// request. Asking the client (elicit, sample, listRoots) takes one of two roads: a 2026-07-28 request is
// answered `input_required` and re-run (input-required.ts); a 2025 session gets a real request.
import {
  type AuthInfo,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  type InputRequest,
  type ListRootsResult,
  type LoggingLevel,
  type RequestOptions,
  SdkError,
  SdkErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { MissingClientCapabilityError, PierError } from './errors.js';
import {
  capabilityName,
  envelopeCapabilities,
  type InputKind,
  type InputRound,
  isElicitAnswer,
  isRootsAnswer,
  isSamplingAnswer,
  missingCapability,
} from './input-required.js';
import type { Logger } from './logger.js';

/** Tells subscribed clients that a resource changed; what a context needs of core's subscriptions. */
export interface ResourceNotifier {
  notify(uri: string): Promise<void>;
}

/**
 * What every tool, resource and prompt method receives as its last argument: the request being
 * served. Pier's own view of the SDK's request context, so that Pier can add to it without
 * breaking your methods.
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
  /** The SDK's own context, for what Pier does not wrap yet. */
  readonly mcp: ServerContext;
  /**
   * Who is calling, as the HTTP transport's authenticator (`@pier/plugin-auth`) established it;
   * `undefined` without one, and on stdio.
   */
  readonly auth: AuthInfo | undefined;
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
   * the answer (see "Asking the client" in the README); on a 2025 session the client gets a real request.
   * Rejects with a {@link MissingClientCapabilityError} when the client did not declare elicitation, and a
   * `PierError` `CLIENT_REQUEST_UNAVAILABLE` when nothing reaches the client (stateless 2025-era HTTP).
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
  /** How long a 2025 session waits for the client's answer. Default: the SDK's, 60 s. */
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
   * Sends a log message to the client (`notifications/message`), filtered by the level the client
   * set with `logging/setLevel`. This is the MCP client's log, not the server's stderr: use
   * `logger` for operators.
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

/** What a context is built from, besides the SDK's context: the same for every request of one handler. */
export interface ContextDeps {
  readonly logger: Logger;
  readonly notifier: ResourceNotifier;
  /** The capabilities the client declared in `initialize` (2025 revisions); `undefined` if it never did. */
  readonly initializeCapabilities: () => ClientCapabilities | undefined;
}

/** Builds a {@link ToolContext} around the SDK's context for one call. */
export function toolContext(
  mcp: ServerContext,
  deps: ContextDeps,
  round: InputRound | undefined,
): ToolContext {
  return {
    ...requestContext(mcp, deps, round),
    async reportProgress(progress, options) {
      const progressToken = mcp.mcpReq._meta?.progressToken;
      if (progressToken === undefined) return;
      await mcp.mcpReq.notify({
        method: 'notifications/progress',
        params: {
          progressToken,
          progress,
          ...(options?.total !== undefined && { total: options.total }),
          ...(options?.message !== undefined && { message: options.message }),
        },
      });
    },
    async sendLog(level, data) {
      await mcp.mcpReq.log(level, data);
    },
    closeStream() {
      const close = mcp.http?.closeSSE;
      if (close === undefined) return false;
      close();
      return true;
    },
  };
}

/** Builds a {@link ResourceContext}. */
export function resourceContext(
  mcp: ServerContext,
  deps: ContextDeps,
  round: InputRound | undefined,
  variables: Readonly<Record<string, string | string[]>>,
): ResourceContext {
  return { ...requestContext(mcp, deps, round), variables };
}

/**
 * Builds the common part of every context. `round` is set on a 2026-07-28 request of a method that may
 * answer `input_required` (tools/call, prompts/get, resources/read).
 */
export function requestContext(
  mcp: ServerContext,
  deps: ContextDeps,
  round: InputRound | undefined,
): RequestContext {
  const declared = (): ClientCapabilities | undefined =>
    envelopeCapabilities(mcp) ?? deps.initializeCapabilities();
  const ask = <T>(
    kind: InputKind,
    request: InputRequest,
    accept: (value: unknown) => boolean,
    options: ClientRequestOptions | undefined,
    push: () => Promise<T>,
  ): Promise<T> => {
    const asker = `ctx.${kind}`;
    if (round !== undefined) {
      const key = options?.key ?? round.nextKey(kind);
      const answer = round.answer(key, accept);
      return answer !== undefined
        ? Promise.resolve(answer as T)
        : round.ask(key, request, asker, options?.beforeTask === true);
    }
    if (mcp.mcpReq.envelope !== undefined) {
      return Promise.reject(
        new PierError(
          'CLIENT_REQUEST_UNAVAILABLE',
          `${asker}: input can be asked for only while serving tools/call, prompts/get or resources/read (this is ${mcp.mcpReq.method})`,
        ),
      );
    }
    const capabilities = deps.initializeCapabilities();
    const missing = capabilities && missingCapability(request, capabilities);
    if (missing) {
      return Promise.reject(
        new MissingClientCapabilityError(
          missing,
          `${asker}: the client did not declare the ${capabilityName(missing)} capability`,
        ),
      );
    }
    return askClient(mcp, asker, push);
  };
  return {
    signal: mcp.mcpReq.signal,
    requestId: mcp.mcpReq.id,
    sessionId: mcp.sessionId,
    logger: deps.logger,
    mcp,
    auth: mcp.http?.authInfo,
    notifyResourceUpdated: (uri) => deps.notifier.notify(uri),
    clientSupports(capability) {
      const caps = declared();
      if (caps === undefined) return false;
      if (capability === 'elicitation.url') {
        return (caps.elicitation as { url?: object } | undefined)?.url !== undefined;
      }
      return caps[capability] !== undefined;
    },
    elicit(request, options) {
      const schema = (request as { requestedSchema?: unknown }).requestedSchema;
      return ask(
        'elicit',
        { method: 'elicitation/create', params: request } as InputRequest,
        (value) => isElicitAnswer(value, schema),
        options,
        () => mcp.mcpReq.elicitInput(request, requestOptions(mcp, options)),
      );
    },
    sample(request, options) {
      return ask(
        'sample',
        { method: 'sampling/createMessage', params: request } as InputRequest,
        isSamplingAnswer,
        options,
        () => mcp.mcpReq.requestSampling(request, requestOptions(mcp, options)),
      );
    },
    listRoots(options) {
      return ask(
        'listRoots',
        { method: 'roots/list', params: {} } as InputRequest,
        isRootsAnswer,
        options,
        () => mcp.mcpReq.send({ method: 'roots/list' }, requestOptions(mcp, options)),
      );
    },
    async once(key, fn) {
      if (round === undefined) return fn();
      const name = `once:${key}`;
      const remembered = round.remembered(name);
      if (remembered !== undefined) {
        round.remember(name, remembered.value);
        return remembered.value as Awaited<ReturnType<typeof fn>>;
      }
      const value = await fn();
      round.remember(name, value === undefined ? null : value);
      return value;
    },
  };
}

function requestOptions(mcp: ServerContext, options: ClientRequestOptions | undefined): RequestOptions {
  // The client's work is for this call: cancelling the call cancels it too.
  return {
    signal: mcp.mcpReq.signal,
    ...(options?.timeoutMs !== undefined && { timeout: options.timeoutMs }),
  };
}

/** Sends a request to a 2025-era client; no channel back to it is a `CLIENT_REQUEST_UNAVAILABLE`. */
async function askClient<T>(mcp: ServerContext, asker: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof SdkError) || error.code !== SdkErrorCode.CapabilityNotSupported) throw error;
    // Stateless HTTP answers each request with a server that never saw the client's initialize.
    throw new PierError(
      'CLIENT_REQUEST_UNAVAILABLE',
      `${asker}: this HTTP server is stateless, so no session carries a request to the client (listen with sessions: true)`,
      { cause: error },
    );
  }
}
