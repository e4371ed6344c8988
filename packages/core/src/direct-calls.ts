// A stateless `tools/call` answered without building an SDK server for it (issue 22). The SDK's stateless
// idiom builds, connects, serves and closes a whole `McpServer` per request: most of a call's CPU. For the
// everyday call — a tool that cannot see its context, valid arguments, a plain text result — what that
// server does is known exactly, so it is done here directly; everything else still goes to the SDK.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { McpObserver, ObservedRequest } from './contract.js';
import type { Declarations, PreparedTool } from './declarations.js';
import { messageOf } from './errors.js';
import type { Logger } from './logger.js';
import { type Finish, finishRequest, type ObservedCalls, observeRequest } from './observe.js';
import { toolErrorResult, toToolResult } from './results.js';
import type { DirectCallOutcome, DirectCallRequest, DirectToolCalls } from './transport-contract.js';

/** What observers are told if the direct path itself failed (the transport then answers 500). */
const INTERNAL_ERROR = { error: { code: -32603, message: 'Internal error' } } as const;
/** Names a header carries as they are (no Base64 sentinel, nothing to strip or decode). */
const PLAIN_NAME = /^[A-Za-z0-9_.\-/]+$/;

interface DirectTool {
  readonly validate: (value: unknown) => unknown;
  readonly handler: (args: unknown) => unknown;
  readonly logger: Logger;
  /** Whether its input schema declares `x-mcp-header` parameters (checked once, on first use). */
  headerParams?: boolean;
  readonly prepared: PreparedTool;
}

/**
 * Builds the direct path for a server, or `undefined` when something the SDK server would do per
 * request is in play: extensions (they install handlers on it), tasks. An authenticator does not turn it
 * off: the transport authenticates (and checks endpoint-wide scopes) before the body is read, and a tool
 * the direct path serves has no scopes of its own and cannot see `ctx.auth`. Nor do observers: they are
 * told about a direct call exactly what an SDK server would tell them (observe.ts), the tool runs inside
 * their dispatch, and a call whose result the SDK writes is reported once (`observed.replays`).
 * `replays` holds results the direct path computed but cannot write itself (see {@link DirectCallOutcome}).
 */
export function directToolCalls(
  declarations: Declarations,
  logger: Logger,
  serverInfo: Readonly<Record<string, string>>,
  replays: WeakMap<object, unknown>,
  tasksOff: boolean,
  observed: ObservedCalls,
): DirectToolCalls | undefined {
  if (declarations.extensions.length > 0 || !tasksOff) return undefined;
  const observers = declarations.observers;
  const tools = new Map<string, DirectTool>();
  for (const prepared of declarations.tools) {
    const tool = prepared.declaration;
    const handler = tool.handler as (args: unknown, ctx?: unknown) => unknown;
    const input = prepared.config.inputSchema;
    if (
      // A handler that declares a second parameter may use its context (log, ask, progress, ctx.mcp):
      // that needs the SDK's per-request context. One that declares only its arguments cannot; nor can
      // one that declares none, for a tool without input (which is always called with `{}`).
      (input === undefined ? handler.length > 1 : handler.length !== 1) ||
      prepared.config.outputSchema !== undefined ||
      (tool.task ?? 'never') !== 'never' ||
      (tool.scopes !== undefined && tool.scopes.length > 0) ||
      !PLAIN_NAME.test(tool.name)
    ) {
      continue;
    }
    const standard = input?.['~standard'];
    tools.set(tool.name, {
      // Without an input schema the SDK checks no arguments and Pier calls the handler with `{}` (a new one
      // each call, as the SDK path's callback does).
      validate: standard === undefined ? () => ({ value: {} }) : (value) => standard.validate(value),
      handler,
      logger: logger.child(`tool:${tool.name}`),
      prepared,
    });
  }
  if (tools.size === 0) return undefined;
  const info = { ...serverInfo };

  return {
    call(name, args, era, request) {
      const tool = tools.get(name);
      if (tool === undefined) return undefined;
      // Observers are told what the request was; a caller that cannot say leaves the call to the SDK.
      if (observers.length > 0 && request === undefined) return undefined;
      if (tool.headerParams === undefined) tool.headerParams = declaresHeaderParams(tool.prepared);
      if (tool.headerParams) return undefined;
      // The SDK validates `arguments ?? {}` with the tool's schema; a failure (its message) is its to write.
      const checked = tool.validate(args ?? {}) as { value?: unknown; issues?: unknown } | Promise<unknown>;
      if (checked instanceof Promise) return undefined;
      if (checked.issues !== undefined) return undefined;
      if (observers.length === 0) return run(tool, checked.value, era, info);
      return runObserved(observers, observed, logger, request as DirectCallRequest, era, () =>
        run(tool, checked.value, era, info),
      );
    },
    replay(request, result) {
      if (result instanceof ObservedReplay) {
        replays.set(request, result.result);
        // The SDK server serving `request` hands its answer to these instead of reporting it again.
        observed.replays.set(request, result.finishes);
        return;
      }
      replays.set(request, result);
    },
  };
}

/** A result the SDK writes, of a call the observers were told about: their callbacks wait for its answer. */
class ObservedReplay {
  constructor(
    readonly result: unknown,
    readonly finishes: Finish[],
  ) {}
}

/**
 * Runs a direct call inside the observers' dispatch, as an SDK server runs the handler (observe.ts), and
 * tells them its outcome: at once for a result written here, through the SDK server otherwise.
 */
function runObserved(
  observers: readonly McpObserver[],
  observed: ObservedCalls,
  logger: Logger,
  request: DirectCallRequest,
  era: 'modern' | 'legacy',
  execute: () => Promise<DirectCallOutcome>,
): Promise<DirectCallOutcome> {
  const server = request.server;
  const session = server === undefined ? undefined : observed.sessions.get(server);
  const seen: ObservedRequest = {
    method: 'tools/call',
    id: request.id,
    params: request.params,
    era,
    sessionId: session?.sessionId,
    headers: request.request.headers,
    authInfo: request.authInfo,
    session,
  };
  const finishes: Finish[] = [];
  let outcome: Promise<DirectCallOutcome> | undefined;
  observeRequest(
    observers,
    seen,
    () => {
      outcome = execute();
    },
    logger,
    finishes,
  );
  // observeRequest runs the dispatch exactly once, before it returns.
  return (outcome as Promise<DirectCallOutcome>).then(
    (settled) => {
      if ('result' in settled) {
        finishRequest(finishes, settled, logger);
        return settled;
      }
      return { replay: new ObservedReplay(settled.replay, finishes) };
    },
    (error: unknown) => {
      // Not expected (a tool's failure is its error result): the transport answers 500, the span ends.
      finishRequest(finishes, INTERNAL_ERROR, logger);
      throw error;
    },
  );
}

async function run(
  tool: DirectTool,
  args: unknown,
  era: 'modern' | 'legacy',
  serverInfo: Readonly<Record<string, string>>,
): Promise<DirectCallOutcome> {
  let result: CallToolResult;
  try {
    result = toToolResult(await tool.handler(args));
  } catch (error) {
    // What the SDK-served callback does (sdk-servers.ts): a thrown error is the tool's error result.
    tool.logger.warn('tool failed', { error: messageOf(error) });
    result = toolErrorResult(error);
  }
  const plain = plainResult(result, era === 'modern' ? serverInfo : undefined);
  return plain === undefined ? { replay: result } : { result: plain };
}

/**
 * `result` as the SDK writes it when it is only text (and `isError`): its result schema keeps exactly
 * these fields, in this order; a 2026-07-28 answer (`serverInfo` given) then carries `resultType` and the
 * server's stamp in `_meta`, as the SDK adds them. `undefined` for anything else (structured content,
 * `_meta`, other content types, extra fields), whose projection and validation stay the SDK's.
 *
 * Every object is an object literal: on Node 20 (V8 11.3) a spread followed by more properties
 * (`{ ...plain, resultType }`) costs 1–5 µs a call, more than the rest of the result's making.
 */
function plainResult(
  result: CallToolResult,
  serverInfo: Readonly<Record<string, string>> | undefined,
): Record<string, unknown> | undefined {
  if (!isPlainObject(result)) return undefined;
  let isError: boolean | undefined;
  for (const key in result) {
    if (key === 'content') continue;
    if (key === 'isError' && typeof result.isError === 'boolean') {
      isError = result.isError;
      continue;
    }
    return undefined;
  }
  const content = result.content;
  if (!Array.isArray(content)) return undefined;
  const copied: { type: 'text'; text: string }[] = [];
  for (const item of content as unknown[]) {
    if (!isPlainObject(item)) return undefined;
    let keys = 0;
    for (const _ in item) keys += 1;
    if (keys !== 2 || item.type !== 'text' || typeof item.text !== 'string') return undefined;
    copied.push({ type: 'text', text: item.text });
  }
  if (serverInfo === undefined) {
    return isError === undefined ? { content: copied } : { content: copied, isError };
  }
  // `io.modelcontextprotocol/serverInfo`: stamped by the SDK on every 2026-07-28 result.
  const _meta = { 'io.modelcontextprotocol/serverInfo': serverInfo };
  return isError === undefined
    ? { content: copied, resultType: 'complete', _meta }
    : { content: copied, isError, resultType: 'complete', _meta };
}

/** Whether the tool's input schema declares `x-mcp-header` parameters (the SDK checks their headers). */
function declaresHeaderParams(prepared: PreparedTool): boolean {
  const input = prepared.config.inputSchema;
  if (input === undefined) return false;
  try {
    const json = input['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    return JSON.stringify(json).includes('x-mcp-header');
  } catch {
    return true;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
