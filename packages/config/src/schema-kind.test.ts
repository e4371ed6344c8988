import { describe, expect, it } from 'vitest';
import * as zm from 'zod/mini';
import { z } from './index.js';
import { inspectSchema, isZodSchema } from './schema-kind.js';

describe('inspectSchema', () => {
  it.each([
    ['z.boolean()', z.boolean(), 'boolean'],
    ['z.coerce.boolean()', z.coerce.boolean(), 'boolean'],
    ['z.stringbool()', z.stringbool(), 'boolean-text'],
    ['z.number()', z.number(), 'number'],
    ['z.coerce.number()', z.coerce.number(), 'number'],
    ['z.number().int()', z.number().int(), 'integer'],
    ['z.int()', z.int(), 'integer'],
    ['z.uint32()', z.uint32(), 'integer'],
    ['z.string()', z.string(), 'text'],
    ['z.enum()', z.enum(['a', 'b']), 'text'],
    ['z.string().transform()', z.string().transform((text) => text.length), 'text'],
    ['z.preprocess()', z.preprocess((value) => value, z.number()), 'text'],
    ['z.array()', z.array(z.string()), 'text'],
    ['zod/mini boolean', zm.boolean(), 'boolean'],
    ['zod/mini int', zm.int(), 'integer'],
  ])('reads %s as %s', (_, schema, kind) => {
    expect(inspectSchema(schema).kind).toBe(kind);
  });

  it('looks through optional, nullable, default, prefault, catch, readonly and lazy', () => {
    const wrapped = z.lazy(() => z.number().int().nullable().optional().default(1).readonly().catch(2));
    expect(inspectSchema(wrapped)).toEqual({ kind: 'integer', hasDefault: true });
    expect(inspectSchema(z.boolean().prefault(true))).toEqual({ kind: 'boolean', hasDefault: true });
    expect(inspectSchema(z.boolean().optional())).toEqual({ kind: 'boolean', hasDefault: false });
  });

  it('lists enum and literal values', () => {
    expect(inspectSchema(z.enum(['debug', 'info']).default('info')).values).toEqual(['debug', 'info']);
    expect(inspectSchema(z.enum({ Low: 'low', High: 'high' })).values).toEqual(['low', 'high']);
    expect(inspectSchema(z.literal(['a', 1])).values).toEqual(['a', 1]);
  });

  it('finds URL formats and their protocol restriction', () => {
    expect(inspectSchema(z.url()).url).toEqual({});
    expect(inspectSchema(z.string().url().optional()).url).toEqual({});
    expect(inspectSchema(z.url({ protocol: /^https?$/ })).url).toEqual({ protocol: /^https?$/ });
    expect(inspectSchema(z.string().min(1).url({ protocol: /^wss$/ })).url).toEqual({ protocol: /^wss$/ });
    expect(inspectSchema(z.email()).url).toBeUndefined();
  });

  it('survives a lazy schema that refers to itself', () => {
    const loop: z.ZodType = z.lazy(() => loop);
    expect(inspectSchema(loop).kind).toBe('text');
  });
});

describe('isZodSchema', () => {
  it('tells zod 4 schemas from other values', () => {
    expect(isZodSchema(z.string())).toBe(true);
    expect(isZodSchema(zm.string())).toBe(true);
    for (const value of [null, undefined, 'string', 1, {}, { _zod: {} }])
      expect(isZodSchema(value)).toBe(false);
  });
});
