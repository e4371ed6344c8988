// `completion/complete`: suggestions for a prompt argument (a `completable` schema) or a resource template
// variable (the template's `complete`). The reference is resolved before middleware runs, so the template's
// scopes guard its completions as they guard its reads.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Call } from '../call.js';
import type { Completer } from '../catalog.js';
import type { Engine } from '../engine.js';
import type { Target } from '../middleware.js';
import { isJsonObject, type JsonObject } from '../wire.js';

const EMPTY = Object.freeze({ completion: Object.freeze({ values: Object.freeze([]), hasMore: false }) });
const MAX_VALUES = 100;

/** Defines `completion/complete` on `engine`. */
export function defineCompletion(engine: Engine): void {
  const catalog = engine.catalog;
  engine.define('completion/complete', {
    eras: 'both',
    resolve: (call) => {
      const ref = call.params.ref;
      if (!isJsonObject(ref)) return undefined;
      if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
        const prompt = catalog.prompts.get(ref.name);
        return prompt && { kind: 'prompt', name: prompt.name, declaration: prompt.declaration };
      }
      if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
        const template = catalog.templateOf(ref.uri) ?? catalog.fixed.get(safeHref(ref.uri));
        return (
          template && ({ kind: 'resource', name: template.name, declaration: template.declaration } as Target)
        );
      }
      return undefined;
    },
    run: async (call) => {
      const { ref, argument } = call.params;
      if (
        !isJsonObject(ref) ||
        !isJsonObject(argument) ||
        typeof argument.name !== 'string' ||
        typeof argument.value !== 'string'
      ) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'Invalid completion/complete request: params need a ref and an argument { name, value }',
        );
      }
      const context = isJsonObject(call.params.context) ? call.params.context : undefined;
      let completer: Completer | undefined;
      if (ref.type === 'ref/prompt') {
        const name = ref.name;
        const prompt = typeof name === 'string' ? catalog.prompts.get(name) : undefined;
        if (prompt === undefined)
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${String(name)} not found`);
        completer = prompt.completers.get(argument.name);
      } else if (ref.type === 'ref/resource') {
        const uri = ref.uri;
        const template = typeof uri === 'string' ? catalog.templateOf(uri) : undefined;
        if (template === undefined) {
          if (typeof uri === 'string' && catalog.fixed.has(safeHref(uri)))
            return EMPTY as unknown as JsonObject;
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `Resource template ${String(uri)} not found`,
          );
        }
        completer = (template.declaration as { complete?: Readonly<Record<string, Completer>> }).complete?.[
          argument.name
        ];
      } else {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid completion reference: ${String(ref.type)}`,
        );
      }
      if (completer === undefined) return EMPTY as unknown as JsonObject;
      return completionResult(
        await completer(argument.value, context as { arguments?: Record<string, string> }),
      );
    },
  });
}

function completionResult(suggestions: readonly unknown[]): JsonObject {
  const values = suggestions.map(String);
  return {
    completion: {
      values: values.slice(0, MAX_VALUES),
      total: values.length,
      hasMore: values.length > MAX_VALUES,
    },
  };
}

function safeHref(uri: string): string {
  return URL.canParse(uri) ? new URL(uri).href : uri;
}

/** Whether `call` is a completion of something the server declares (for tests and middleware). */
export function isCompletion(call: Call): boolean {
  return call.method === 'completion/complete';
}
