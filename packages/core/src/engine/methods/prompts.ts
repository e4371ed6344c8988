// `prompts/list` and `prompts/get`.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { HandlerContext } from '../../context/handler-context.js';
import type { ResourceNotifier } from '../../context/types.js';
import { messageOf } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Call } from '../call.js';
import type { PromptEntry } from '../catalog.js';
import type { Engine } from '../engine.js';
import type { Target } from '../middleware.js';
import { toPromptResult } from '../results.js';
import type { Rounds } from '../rounds.js';
import { isJsonObject, type JsonObject } from '../wire.js';
import { formatIssues, listPage } from './lists.js';

/** Defines `prompts/list` and `prompts/get` on `engine`. */
export function definePrompts(engine: Engine, rounds: Rounds, notifier: ResourceNotifier): void {
  const catalog = engine.catalog;
  const loggers = new Map<string, Logger>();
  for (const name of catalog.prompts.keys()) loggers.set(name, engine.logger.child(`prompt:${name}`));
  engine.define('prompts/list', {
    eras: 'both',
    run: (call) => listPage(call, 'prompts', catalog.promptList),
  });
  engine.define('prompts/get', {
    eras: 'both',
    resolve: (call) => resolvePrompt(call, catalog.prompts.get(call.params.name as string)),
    run: async (call) => {
      const name = call.params.name;
      if (typeof name !== 'string') {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'Invalid prompts/get request: params.name must be a string',
        );
      }
      if (call.era === 'modern' && call.params.requestState !== undefined) await rounds.verify(call);
      const prompt = catalog.prompts.get(name);
      if (prompt === undefined)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} not found`);
      return getPrompt(call, prompt, rounds, notifier, loggers.get(name) as Logger);
    },
  });
}

function resolvePrompt(call: Call, prompt: PromptEntry | undefined): Target | undefined {
  const args = call.params.arguments;
  call.arguments = isJsonObject(args) ? args : undefined;
  return prompt === undefined
    ? undefined
    : { kind: 'prompt', name: prompt.name, declaration: prompt.declaration };
}

async function getPrompt(
  call: Call,
  prompt: PromptEntry,
  rounds: Rounds,
  notifier: ResourceNotifier,
  logger: Logger,
): Promise<JsonObject> {
  const args = call.arguments ?? {};
  let value: unknown = {};
  if (prompt.args !== undefined) {
    let checked = prompt.args['~standard'].validate(args);
    if (checked instanceof Promise) checked = await checked;
    if (checked.issues !== undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Invalid arguments for prompt ${prompt.name}: ${formatIssues(checked.issues)}`,
      );
    }
    value = checked.value;
  }
  const handler = prompt.declaration.handler as (args: unknown, ctx: unknown) => unknown;
  try {
    return (await rounds.run(call, prompt.name, value, async (round) =>
      toPromptResult(
        await handler(value, new HandlerContext(call, logger, notifier, round)),
        prompt.declaration.description,
      ),
    )) as JsonObject;
  } catch (error) {
    logger.warn('prompt failed', { error: messageOf(error) });
    throw error;
  }
}
