// Raw JSON Schema inputs and outputs: listed as declared, validated by a JSON Schema 2020-12 validator;
// zod schemas beside them keep working as before.
import type { Client } from '@modelcontextprotocol/client';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createServer } from '../server/create-server.js';
import { type Era, quiet, REVISION, thrown } from '../test-helpers.js';
import { MCPServer, Prompt, Tool } from './decorators.js';
import { defineServer, defineTool } from './define.js';
import { jsonSchema } from './schema.js';

// The conformance suite's SEP-1613 fixture: 2020-12 keywords a zod schema cannot express.
const CONTACT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
      required: ['city'],
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string', format: 'email' },
    region: { type: 'string', 'x-mcp-header': 'Region' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } } },
  // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, not a thenable
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
} as const;

const RESULT = {
  type: 'object',
  properties: { greeting: { type: 'string' } },
  required: ['greeting'],
  additionalProperties: false,
} as const;

const calls: unknown[] = [];

@MCPServer({ name: 'contacts', version: '1.0.0' })
class ContactsServer {
  @Tool({ description: 'Saves a contact', input: CONTACT })
  save(contact: Record<string, unknown>) {
    calls.push(contact);
    return `saved ${String(contact.name)}`;
  }

  @Tool({
    description: 'Greets',
    input: jsonSchema<{ name: string }>({
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
    }),
    output: RESULT,
  })
  greet({ name }: { name: string }) {
    return name === 'nobody' ? { greeting: 42 } : { greeting: `Hello, ${name}!` };
  }

  @Tool({ input: { region: z.string().meta({ 'x-mcp-header': 'Region' }), city: z.string() } })
  forecast({ city }: { region: string; city: string }) {
    return `Sunny in ${city}`;
  }

  @Prompt({
    args: { type: 'object', properties: { topic: { type: 'string', description: 'What about' } } },
  })
  brief(args: Record<string, unknown>) {
    return `Brief me on ${String(args.topic)}.`;
  }
}

let client: Client | undefined;
afterEach(closeAll);
afterEach(async () => {
  await client?.close();
  client = undefined;
  calls.length = 0;
});

const text = (result: { content?: unknown }) =>
  ((result.content as { text?: string }[] | undefined) ?? []).map((block) => block.text).join('');

describe.each<Era>(['modern', 'legacy'])('a raw JSON Schema, %s client', (era) => {
  it('is listed as declared: every keyword, in tools/list and in prompts/list', async () => {
    client = (await connect(createServer(ContactsServer, undefined, quiet), { era: REVISION[era] })).client;
    const { tools } = await client.listTools();
    const save = tools.find((tool) => tool.name === 'save');
    expect(save?.inputSchema).toStrictEqual(CONTACT);
    const greet = tools.find((tool) => tool.name === 'greet');
    // The SDK lists `type` first; a schema written that way comes back byte for byte.
    expect(JSON.stringify(greet?.outputSchema)).toBe(JSON.stringify(RESULT));
    const { prompts } = await client.listPrompts();
    expect(prompts.find((prompt) => prompt.name === 'brief')?.arguments).toEqual([
      { name: 'topic', description: 'What about', required: false },
    ]);
  });

  it('passes valid arguments to the method', async () => {
    client = (await connect(createServer(ContactsServer, undefined, quiet), { era: REVISION[era] })).client;
    const contact = {
      name: 'Ada',
      contactMethod: 'email',
      email: 'ada@example.com',
      address: { city: 'Oslo' },
    };
    const result = await client.callTool({ name: 'save', arguments: contact });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('saved Ada');
    expect(calls).toEqual([contact]);
  });

  it.each([
    [
      'a nested field of the wrong type',
      { email: 'a@b.co', address: { city: 7 } },
      'data/address/city must be string',
    ],
    [
      'a field the schema does not allow',
      { email: 'a@b.co', age: 3 },
      'data must NOT have additional properties',
    ],
    [
      'a branch of if/then/else',
      { contactMethod: 'phone', email: 'a@b.co' },
      "data must have required property 'phone'",
    ],
    ['a format', { email: 'not an address' }, 'data/email must match format "email"'],
  ])('refuses %s with a tool error naming the path, before the method runs', async (_, args, message) => {
    client = (await connect(createServer(ContactsServer, undefined, quiet), { era: REVISION[era] })).client;
    const result = await client.callTool({ name: 'save', arguments: args });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Invalid arguments for tool save');
    expect(text(result)).toContain(message);
    expect(calls).toEqual([]);
  });

  it('checks the structured result against a raw output schema', async () => {
    client = (await connect(createServer(ContactsServer, undefined, quiet), { era: REVISION[era] })).client;
    const good = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(good.structuredContent).toEqual({ greeting: 'Hello, Ada!' });
    const bad = await client.callTool({ name: 'greet', arguments: { name: 'nobody' } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('data/greeting must be string');
  });

  it('keeps x-mcp-header on a zod field declared with .meta()', async () => {
    client = (await connect(createServer(ContactsServer, undefined, quiet), { era: REVISION[era] })).client;
    const { tools } = await client.listTools();
    const forecast = tools.find((tool) => tool.name === 'forecast');
    expect(forecast?.inputSchema.properties).toEqual({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      city: { type: 'string' },
    });
  });
});

describe('declaring a raw JSON Schema', () => {
  it('serves the schema as it was when declared, not as it is changed later', async () => {
    const input = { type: 'object' as const, properties: { city: { type: 'string' } } };
    const server = createServer(
      defineServer({
        name: 'weather',
        version: '1.0.0',
        tools: [defineTool({ name: 'forecast', input, handler: () => 'sunny' })],
      }),
      quiet,
    );
    input.properties.city.type = 'number';
    client = (await connect(server, { era: REVISION.modern })).client;
    const { tools } = await client.listTools();
    expect(tools[0]?.inputSchema).toEqual({ type: 'object', properties: { city: { type: 'string' } } });
  });

  it('validates two schemas with one $id each against its own', async () => {
    const tool = (name: string, type: string) =>
      defineTool({
        name,
        input: { $id: 'urn:example:args', type: 'object', properties: { x: { type } }, required: ['x'] },
        handler: () => 'ok',
      });
    const server = createServer(
      defineServer({
        name: 'ids',
        version: '1.0.0',
        tools: [tool('strings', 'string'), tool('numbers', 'number')],
      }),
      quiet,
    );
    client = (await connect(server, { era: REVISION.modern })).client;
    expect((await client.callTool({ name: 'strings', arguments: { x: 'a' } })).isError).toBeFalsy();
    expect((await client.callTool({ name: 'numbers', arguments: { x: 1 } })).isError).toBeFalsy();
    expect((await client.callTool({ name: 'numbers', arguments: { x: 'a' } })).isError).toBe(true);
  });

  it.each([
    ['an unknown type', { type: 'object', properties: { a: { type: 'strin' } } }, 'type must be JSONType'],
    [
      'a $ref to nothing',
      { type: 'object', properties: { a: { $ref: '#/$defs/nope' } } },
      "can't resolve reference",
    ],
    [
      'a $ref to the network (never fetched)',
      { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } },
      "can't resolve reference",
    ],
    [
      'an unknown dialect',
      { $schema: 'https://example.com/my-dialect', type: 'object' },
      'unsupported dialect',
    ],
    ['a value that is not JSON', { type: 'object', default: 1n }, 'made of JSON values only'],
  ])('refuses %s at createServer, naming the tool and the field', (_, input, reason) => {
    const declaration = defineServer({
      name: 'weather',
      version: '1.0.0',
      tools: [{ name: 'forecast', input: input as never, handler: () => 'sunny' }],
    });
    const error = thrown(() => createServer(declaration, quiet));
    expect(error.code).toBe('DECLARATION_INVALID');
    expect(error.message).toContain('tool "forecast" of the server declaration: "input" must be');
    expect(error.message).toContain(reason);
  });

  it.each([
    ['without type: object', { properties: { city: { type: 'string' } } }],
    ['of another type', { type: 'string' }],
  ])('refuses a JSON Schema %s where it is declared', (_, output) => {
    const error = thrown(() => {
      @MCPServer({ name: 'weather', version: '1.0.0' })
      class SchemaServer {
        @Tool({ output: output as never })
        lookup() {}
      }
      return SchemaServer;
    });
    expect(error.code).toBe('DECLARATION_INVALID');
    expect(error.message).toContain('@Tool on SchemaServer.lookup: "output" must be');
    expect(error.message).toContain("a JSON Schema with type: 'object'");
  });
});
