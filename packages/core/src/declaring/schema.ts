// Turns a declared schema (zod, or a raw JSON Schema) into what the SDK registers, once per declaration
// rather than once per SDK server: HTTP transports build a server per request, and the SDK would
// otherwise convert every schema to JSON Schema again on each `tools/list`.
import { fromJsonSchema, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { z } from 'zod';
import { fail, messageOf } from '../errors.js';
import type { JsonObjectSchema, JsonSchema, ObjectSchema } from './model.js';
import { isJsonObjectSchema, isZodShape } from './validate.js';

type JsonSchemaObject = Record<string, unknown>;
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
  if (isJsonObjectSchema(schema)) return prepareJsonSchema(schema, where, field);
  const zodSchema = (isZodShape(schema) ? z.object(schema as z.ZodRawShape) : schema) as z.ZodType;
  const standard = zodSchema['~standard'] as StandardSchemaWithJSON['~standard'];
  if (typeof standard.jsonSchema?.input !== 'function') {
    fail(where, field, 'a zod 4.2+ schema (one that converts to JSON Schema)', schema);
  }
  const memo = new Map<string, JsonSchemaObject>();
  const convert = (io: 'input' | 'output', options: JsonSchemaOptions): JsonSchemaObject => {
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

/**
 * Declares a tool's `input` or `output` (or a prompt's `args`) as a raw JSON Schema, served in
 * `tools/list` as written and validated by a JSON Schema validator (2020-12 unless `$schema` names
 * 2019-09 or draft-07). `T` is the value it describes, which types the method's arguments (default:
 * `Record<string, unknown>`); the schema itself is returned unchanged. A plain object with
 * `type: 'object'` works the same without this helper, untyped.
 *
 * @example
 * ```ts
 * const input = jsonSchema<{ city: string }>({
 *   type: 'object',
 *   properties: { city: { type: 'string', minLength: 1 } },
 *   required: ['city'],
 * });
 * ```
 */
export function jsonSchema<T extends Record<string, unknown> = Record<string, unknown>>(
  schema: JsonObjectSchema,
): JsonSchema<T> {
  return schema as JsonSchema<T>;
}

// One validator (so one compiled engine per dialect) for every raw schema, except those with an `$id`:
// the validator caches compiled schemas by `$id`, so two different schemas with one `$id` would both be
// checked against the first. Those get a validator of their own (an engine costs ~30 ms to build).
let sharedValidator: AjvJsonSchemaValidator | undefined;
function validatorFor(text: string): AjvJsonSchemaValidator {
  if (text.includes('"$id"')) return new AjvJsonSchemaValidator();
  sharedValidator ??= new AjvJsonSchemaValidator();
  return sharedValidator;
}

/** A raw JSON Schema: copied and frozen as declared, compiled now so that a bad one fails here. */
function prepareJsonSchema(schema: JsonObjectSchema, where: string, field: string): PreparedSchema {
  let text: string | undefined;
  try {
    text = JSON.stringify(schema);
  } catch {}
  if (text === undefined) fail(where, field, 'a JSON Schema made of JSON values only', schema);
  // A copy: what is served cannot change after the declaration, nor be changed by an SDK server.
  const copy = deepFreeze(JSON.parse(text) as JsonSchemaObject);
  let standard: StandardSchemaWithJSON['~standard'];
  try {
    standard = fromJsonSchema(copy, validatorFor(text))['~standard'];
  } catch (error) {
    fail(where, field, `a valid JSON Schema (${messageOf(error)})`, schema);
  }
  return { '~standard': standard };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
