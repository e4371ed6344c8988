import {
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  type LoggingLevel,
  type RequestOptions,
  SdkError,
  SdkErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { PierError } from './errors.js';
import type { Logger } from './logger.js';
import type { ResourceUpdates } from './subscriptions.js';

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
   * Tells every client subscribed to `uri` that the resource changed (`notifications/resources/updated`);
   * the same as `server.notifyResourceUpdated(uri)`. Clients that did not subscribe hear nothing.
   */
  notifyResourceUpdated(uri: string): Promise<void>;
}

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

/** Options of a request a tool sends to the client ({@link ToolContext.sample}, {@link ToolContext.elicit}). */
export interface ClientRequestOptions {
  /** How long to wait for the client's answer. Default: the SDK's, 60 s. */
  readonly timeoutMs?: number;
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
   * Asks the client's model for a completion (`sampling/createMessage`) and resolves with its answer.
   * Cancelled with the call. Rejects with a `PierError` `CLIENT_REQUEST_UNAVAILABLE` when the client
   * cannot be asked (it did not declare `sampling`, the HTTP server is stateless, or the client speaks
   * the 2026-07-28 revision, which has no server-to-client requests).
   */
  sample(request: SamplingRequest, options?: ClientRequestOptions): Promise<SamplingResult>;
  /**
   * Asks the user for input (`elicitation/create`): a form described by `requestedSchema`, or a URL
   * to open. Resolves with the user's `action` and, when accepted, `content` (checked by the SDK
   * against the schema). Rejects like {@link ToolContext.sample} when the client cannot be asked.
   */
  elicit(request: ElicitationRequest, options?: ClientRequestOptions): Promise<ElicitationResult>;
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

/** Builds a {@link ToolContext} around the SDK's context for one call. */
export function toolContext(mcp: ServerContext, logger: Logger, updates: ResourceUpdates): ToolContext {
  const base = requestContext(mcp, logger, updates);
  return {
    ...base,
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
    sample(request, options) {
      return askClient(mcp, 'sample', 'sampling', () =>
        mcp.mcpReq.requestSampling(request, requestOptions(mcp, options)),
      );
    },
    elicit(request, options) {
      const capability = request.mode === 'url' ? 'elicitation (URL mode)' : 'elicitation';
      return askClient(mcp, 'elicit', capability, () =>
        mcp.mcpReq.elicitInput(request, requestOptions(mcp, options)),
      );
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
  logger: Logger,
  updates: ResourceUpdates,
  variables: Readonly<Record<string, string | string[]>>,
): ResourceContext {
  return { ...requestContext(mcp, logger, updates), variables };
}

/** Builds the common part of every context. */
export function requestContext(mcp: ServerContext, logger: Logger, updates: ResourceUpdates): RequestContext {
  return {
    signal: mcp.mcpReq.signal,
    requestId: mcp.mcpReq.id,
    sessionId: mcp.sessionId,
    logger,
    mcp,
    notifyResourceUpdated: (uri) => updates.notify(uri),
  };
}

function requestOptions(mcp: ServerContext, options: ClientRequestOptions | undefined): RequestOptions {
  // The client's work is for this call: cancelling the call cancels it too.
  return {
    signal: mcp.mcpReq.signal,
    ...(options?.timeoutMs !== undefined && { timeout: options.timeoutMs }),
  };
}

/** Sends a server-to-client request; a client that cannot be asked is a `CLIENT_REQUEST_UNAVAILABLE`. */
async function askClient<T>(
  mcp: ServerContext,
  method: 'sample' | 'elicit',
  capability: string,
  send: () => Promise<T>,
): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof SdkError)) throw error;
    let reason: string;
    if (error.code === SdkErrorCode.MethodNotSupportedByProtocolVersion) {
      reason = 'the client speaks the 2026-07-28 revision, which has no server-to-client requests';
    } else if (error.code === SdkErrorCode.CapabilityNotSupported) {
      // Stateless HTTP answers each request with a server that never saw the client's initialize.
      reason =
        mcp.http !== undefined && mcp.sessionId === undefined
          ? 'this HTTP server is stateless, so no session carries a request to the client (listen with sessions: true)'
          : `the client did not declare the ${capability} capability`;
    } else {
      throw error;
    }
    throw new PierError('CLIENT_REQUEST_UNAVAILABLE', `ctx.${method}: ${reason}`, { cause: error });
  }
}
