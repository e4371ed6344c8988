import type { LoggingLevel, ServerContext } from '@modelcontextprotocol/server';
import type { Logger } from './logger.js';

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
}

/** Options of {@link ToolContext.reportProgress}. */
export interface ProgressOptions {
  /** The value `progress` reaches when the work is done, when known. */
  readonly total?: number;
  /** A short human-readable status. */
  readonly message?: string;
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
}

/** The context a resource method receives as its second argument. */
export interface ResourceContext extends RequestContext {
  /** The values a `uriTemplate` matched, by variable name; empty for a fixed `uri`. */
  readonly variables: Readonly<Record<string, string | string[]>>;
}

/** The context a prompt method receives as its second argument. */
export interface PromptContext extends RequestContext {}

/** Builds a {@link ToolContext} around the SDK's context for one call. */
export function toolContext(mcp: ServerContext, logger: Logger): ToolContext {
  const base = requestContext(mcp, logger);
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
  };
}

/** Builds a {@link ResourceContext}. */
export function resourceContext(
  mcp: ServerContext,
  logger: Logger,
  variables: Readonly<Record<string, string | string[]>>,
): ResourceContext {
  return { ...requestContext(mcp, logger), variables };
}

/** Builds the common part of every context. */
export function requestContext(mcp: ServerContext, logger: Logger): RequestContext {
  return {
    signal: mcp.mcpReq.signal,
    requestId: mcp.mcpReq.id,
    sessionId: mcp.sessionId,
    logger,
    mcp,
  };
}
