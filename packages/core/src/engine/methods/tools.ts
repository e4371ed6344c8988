// `tools/list` and `tools/call`. A call's arguments are checked with the schema prepared at `createServer`,
// the handler runs with a context built on demand, and what it returns becomes a `CallToolResult`; a tool
// declared `task` runs as a task for clients of the tasks extension.
import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { HandlerContext } from '../../context/handler-context.js';
import { type InputRound, isProtocolAnswer } from '../../context/input-required.js';
import type { ContextOverrides, ResourceNotifier } from '../../context/types.js';
import type { PreparedSchema } from '../../declaring/schema.js';
import { RequestRefusedError } from '../../errors.js';
import { Tasks } from '../../extensions/tasks.js';
import type { Logger } from '../../logger.js';
import type { Call } from '../call.js';
import type { ToolEntry } from '../catalog.js';
import type { Engine } from '../engine.js';
import type { Target } from '../middleware.js';
import { paramHeaderRefusal } from '../param-headers.js';
import { toolErrorResult, toToolResult } from '../results.js';
import type { Rounds } from '../rounds.js';
import { isJsonObject, isThenable, type JsonObject } from '../wire.js';
import { formatIssues, listPage } from './lists.js';

/** What serving tools needs besides the engine. */
export interface ToolServices {
  readonly rounds: Rounds;
  readonly notifier: ResourceNotifier;
  readonly tasks: Tasks | undefined;
}

/** Defines `tools/list` and `tools/call` on `engine`. */
export function defineTools(engine: Engine, services: ToolServices): void {
  const catalog = engine.catalog;
  const loggers = new Map<string, Logger>();
  for (const name of catalog.tools.keys()) loggers.set(name, engine.logger.child(`tool:${name}`));
  engine.define('tools/list', { eras: 'both', run: (call) => listPage(call, 'tools', catalog.toolList) });
  engine.define('tools/call', {
    eras: 'both',
    resolve: (call) => resolveTool(call, catalog.tools.get(call.params.name as string)),
    run: (call) => callTool(call, catalog.tools.get(call.params.name as string), services, loggers),
  });
}

/** The tool a call names; its arguments, for middleware; and the `Mcp-Param-*` headers checked. */
function resolveTool(call: Call, tool: ToolEntry | undefined): Target | undefined {
  const args = call.params.arguments;
  call.arguments = isJsonObject(args) ? args : undefined;
  if (tool === undefined) return undefined;
  const headers = call.inbound.headers;
  if (tool.headerParams.length > 0 && call.era === 'modern' && headers !== undefined) {
    const refusal = paramHeaderRefusal(tool.headerParams, args, headers);
    if (refusal !== undefined) {
      throw new RequestRefusedError(refusal.error.message, {
        rpcCode: refusal.error.code,
        data: refusal.error.data,
        http: { status: refusal.status },
      });
    }
  }
  return { kind: 'tool', name: tool.name, declaration: tool.declaration };
}

// Not async: a call whose arguments check at once and whose handler answers at once is answered without a
// promise of its own (each is one more per call, and runs every async hook the process has); a
// `requestState` to verify, a schema that checks asynchronously, a task and a handler's promise go on in a
// `then`. What it throws at once, the engine answers as it answers a rejection.
function callTool(
  call: Call,
  tool: ToolEntry | undefined,
  services: ToolServices,
  loggers: ReadonlyMap<string, Logger>,
): JsonObject | Promise<JsonObject> {
  const name = call.params.name;
  if (typeof name !== 'string') {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'Invalid tools/call request: params.name must be a string',
    );
  }
  if (call.era === 'modern' && call.params.requestState !== undefined) {
    return services.rounds.verify(call).then(() => checkArguments(call, tool, services, loggers, name));
  }
  return checkArguments(call, tool, services, loggers, name);
}

function checkArguments(
  call: Call,
  tool: ToolEntry | undefined,
  services: ToolServices,
  loggers: ReadonlyMap<string, Logger>,
  name: string,
): JsonObject | Promise<JsonObject> {
  if (tool === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
  const logger = loggers.get(name) as Logger;
  if (tool.input === undefined) return runTool(call, tool, services, logger, {});
  const checked = tool.input['~standard'].validate(call.arguments ?? {});
  if (checked instanceof Promise) {
    return checked.then((settled) => checkedArguments(call, tool, services, logger, settled));
  }
  return checkedArguments(call, tool, services, logger, checked);
}

function checkedArguments(
  call: Call,
  tool: ToolEntry,
  services: ToolServices,
  logger: Logger,
  checked: Awaited<ReturnType<PreparedSchema['~standard']['validate']>>,
): JsonObject | Promise<JsonObject> {
  if (checked.issues !== undefined) {
    // As the SDK answers it: the model sees what was wrong with its arguments, as a tool error.
    return errorResult(
      `Input validation error: Invalid arguments for tool ${tool.name}: ${formatIssues(checked.issues)}`,
    );
  }
  return runTool(call, tool, services, logger, checked.value);
}

/** Runs the tool's handler on its checked arguments (`value`): as a task, or through its input rounds. */
function runTool(
  call: Call,
  tool: ToolEntry,
  services: ToolServices,
  logger: Logger,
  value: unknown,
): JsonObject | Promise<JsonObject> {
  const name = tool.name;
  const args = call.arguments ?? {};
  const handler = tool.declaration.handler as (args: unknown, ctx: unknown) => unknown;
  const start = (round: InputRound | undefined, overrides?: ContextOverrides): unknown =>
    handler(value, new HandlerContext(call, logger, services.notifier, round, undefined, overrides));
  // As a task runs it: what the handler throws fails the task.
  const run = async (
    round: InputRound | undefined,
    overrides?: ContextOverrides,
  ): Promise<CallToolResult> => {
    const returned = start(round, overrides);
    // A handler that answers at once is not waited for (a promise less per call).
    return toToolResult(isThenable(returned) ? await returned : returned);
  };
  // What the handler threw: a protocol answer (-32021, a forged or stale requestState, a pending question)
  // goes on as it is; anything else is the tool's failure, answered as a tool error.
  const failed = (error: unknown): CallToolResult => {
    if (isProtocolAnswer(error) || isPending(error) || (call.era === 'modern' && isMissingCapability(error)))
      throw error;
    logger.warn('tool failed', { error: messageOfError(error) });
    return toolErrorResult(error);
  };
  const shaped = (returned: unknown): CallToolResult => {
    try {
      return toToolResult(returned);
    } catch (error) {
      return failed(error);
    }
  };
  // A handler that answers at once is answered at once, without a promise.
  const invoke = (round: InputRound | undefined): CallToolResult | Promise<CallToolResult> => {
    let returned: unknown;
    try {
      returned = start(round);
    } catch (error) {
      return failed(error);
    }
    return isThenable(returned) ? Promise.resolve(returned).then(shaped, failed) : shaped(returned);
  };
  const mode = tool.declaration.task ?? 'never';
  const tasks = services.tasks;
  if (mode !== 'never' && tasks !== undefined && Tasks.declared(call)) {
    const rounds = services.rounds;
    return tasks
      .call(
        call,
        call.principal,
        {
          target: rounds.targetOf(call, name, args),
          codec: rounds.codecFor(call),
          maxRounds: rounds.maxRounds,
        },
        // What a task's handler throws fails the task (a JSON-RPC error), unlike a call's (a tool error).
        (round, overrides) => run(round, overrides),
      )
      .then((result) => finished(call, tool, result as JsonObject));
  }
  if (mode === 'required' && tasks !== undefined) throw Tasks.missing(`tool "${name}" runs as a task, so it`);
  let ran: unknown;
  try {
    ran = services.rounds.run(call, name, args, invoke);
  } catch (error) {
    return refusedRound(error);
  }
  if (isThenable(ran)) {
    return Promise.resolve(ran).then((result) => finished(call, tool, result as JsonObject), refusedRound);
  }
  return finished(call, tool, ran as JsonObject);
}

/**
 * A genuine state of another call (another tool, other arguments), or one round too many, is what the
 * tool's run refuses: reported as the tool's error, as the SDK reports it. Anything else goes on.
 */
function refusedRound(error: unknown): JsonObject {
  if (!isRoundRefusal(error)) throw error;
  return errorResult((error as Error).message);
}

/** A question or a task is answered as it is; a result is checked and shaped. */
function finished(call: Call, tool: ToolEntry, result: JsonObject): JsonObject | Promise<JsonObject> {
  if (result.resultType === 'input_required' || result.resultType === 'task') return result;
  return finish(call, tool, result as CallToolResult);
}

/**
 * Checks a result against the tool's output schema, then shapes it for the era. Without a schema to check
 * (or a schema whose check answers at once), no promise.
 */
function finish(call: Call, tool: ToolEntry, result: CallToolResult): JsonObject | Promise<JsonObject> {
  const output = tool.output;
  if (output === undefined || result.isError === true) return shapedResult(call, result);
  if (result.structuredContent === undefined) {
    return errorResult(
      `Output validation error: Tool ${tool.name} has an output schema but no structured content was provided`,
    );
  }
  const checked = output['~standard'].validate(result.structuredContent);
  if (checked instanceof Promise)
    return checked.then((settled) => checkedResult(call, tool, result, settled));
  return checkedResult(call, tool, result, checked);
}

function checkedResult(
  call: Call,
  tool: ToolEntry,
  result: CallToolResult,
  checked: Awaited<ReturnType<PreparedSchema['~standard']['validate']>>,
): JsonObject {
  if (checked.issues !== undefined) {
    return errorResult(
      `Output validation error: Invalid structured content for tool ${tool.name}: ${formatIssues(checked.issues)}`,
    );
  }
  return shapedResult(call, result);
}

/** A tool's result as the era carries it (SEP-2106's non-object structured content; `content` always). */
function shapedResult(call: Call, result: CallToolResult): JsonObject {
  let shaped = result as JsonObject;
  const structured = shaped.structuredContent;
  if (structured !== undefined && !isJsonObject(structured)) {
    // SEP-2106: a non-object structured result also goes as text, and 2025 clients get it wrapped.
    const content = Array.isArray(shaped.content) ? (shaped.content as { type?: unknown }[]) : [];
    if (!content.some((block) => block?.type === 'text')) {
      shaped = Object.assign({}, shaped, {
        content: [...content, { type: 'text', text: JSON.stringify(structured) }],
      });
    }
    if (call.era === 'legacy')
      shaped = Object.assign({}, shaped, { structuredContent: { result: structured } });
  } else if (shaped.content === undefined) {
    shaped = Object.assign({}, shaped, { content: [] });
  }
  return shaped;
}

function errorResult(text: string): JsonObject {
  return { content: [{ type: 'text', text }], isError: true };
}

function isRoundRefusal(error: unknown): boolean {
  if (!(error instanceof ProtocolError)) return false;
  if (error.code === ProtocolErrorCode.InvalidRequest) return true;
  return (error.data as { reason?: unknown } | undefined)?.reason === 'invalid_request_state';
}

function isPending(error: unknown): boolean {
  return error instanceof Error && error.name === 'InputPendingSignal';
}

function isMissingCapability(error: unknown): boolean {
  return error instanceof Error && error.name === 'MissingClientCapabilityError';
}

function messageOfError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
