// Turns a declared zod schema into what the SDK registers, once per declaration rather than once per
// SDK server: HTTP transports build a server per request, and the SDK would otherwise convert every
// schema to JSON Schema again on each `tools/list`.
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ObjectSchema } from './declaration.js';
import { fail } from './errors.js';
import { isZodShape } from './validate.js';

type JsonSchema = Record<string, unknown>;
type JsonSchemaOptions = Parameters<StandardSchemaWithJSON['~standard']['jsonSchema']['input']>[0];

/**
 * A zod object schema behind a Standard Schema whose JSON Schema conversions are memoised.
 * `shape` stays visible because the SDK reads it (to find completable prompt arguments).
 */
export interface PreparedSchema extends StandardSchemaWithJSON<unknown, unknown> {
  readonly shape?: unknown;
}

/**
 * Wraps `schema` (a zod shape or zod schema) for the SDK and checks that it describes an object,
 * as MCP requires of tool inputs, tool outputs (in Pier) and prompt arguments.
 */
export function prepareObjectSchema(schema: ObjectSchema, where: string, field: string): PreparedSchema {
  const zodSchema = (isZodShape(schema) ? z.object(schema as z.ZodRawShape) : schema) as z.ZodType;
  const standard = zodSchema['~standard'] as StandardSchemaWithJSON['~standard'];
  if (typeof standard.jsonSchema?.input !== 'function') {
    fail(where, field, 'a zod 4.2+ schema (one that converts to JSON Schema)', schema);
  }
  const memo = new Map<string, JsonSchema>();
  const convert = (io: 'input' | 'output', options: JsonSchemaOptions): JsonSchema => {
    const key = `${io} ${String(options.target)}`;
    let json = memo.get(key);
    if (json === undefined) {
      // Frozen: one object now serves every SDK server, so a mutation would leak between requests.
      json = deepFreeze(standard.jsonSchema[io](options));
      memo.set(key, json);
    }
    return json;
  };
  let rootType: unknown;
  try {
    rootType = convert(field === 'output' ? 'output' : 'input', { target: 'draft-2020-12' }).type;
  } catch (error) {
    fail(where, field, `a schema that converts to JSON Schema (${(error as Error).message})`, schema);
  }
  if (rootType !== undefined && rootType !== 'object') {
    fail(where, field, 'a schema of an object, such as z.object({...})', schema);
  }
  const prepared: PreparedSchema = {
    '~standard': {
      version: 1,
      vendor: standard.vendor,
      validate: (value, options) => standard.validate(value, options),
      jsonSchema: {
        input: (options) => convert('input', options),
        output: (options) => convert('output', options),
      },
    },
    ...('shape' in zodSchema && { shape: zodSchema.shape }),
  };
  return prepared;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
