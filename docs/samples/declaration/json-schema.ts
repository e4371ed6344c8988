// Where zod cannot say it ($defs, anyOf, x-mcp-header…), declare the input as JSON Schema.
import { createServer, defineServer, defineTool, jsonSchema } from '@pier/core';
import { connect } from '@pier/testing';

const Contact = jsonSchema<{ name?: string; email?: string; phone?: string; region?: string }>({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    name: { type: 'string' },
    email: { type: 'string', format: 'email' },
    phone: { type: 'string' },
    region: { type: 'string', 'x-mcp-header': 'Region' }, // also sent as the Mcp-Param-Region header
  },
  anyOf: [{ required: ['email'] }, { required: ['phone'] }],
  additionalProperties: false,
});

const saveContact = defineTool({
  name: 'save_contact',
  description: 'Saves a contact',
  input: Contact,
  handler: (contact) => `saved ${contact.name ?? contact.email ?? contact.phone}`, // typed as Contact
});

const server = createServer(defineServer({ name: 'contacts', version: '1.0.0', tools: [saveContact] }));
const { client, close } = await connect(server);
for (const args of [{ name: 'Ada', email: 'ada@example.com' }, { name: 'Ada' }]) {
  console.log((await client.callTool({ name: 'save_contact', arguments: args })).content);
}
await close();
