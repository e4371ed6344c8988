// Every tool, resource and prompt the official conformance suite's server scenarios expect, declared
// with Pier's public API only. Names, texts and shapes follow the suite's scenario descriptions
// (@modelcontextprotocol/conformance 0.1.16).
import {
  audioContent,
  completable,
  embeddedResource,
  imageContent,
  MCPServer,
  Prompt,
  Resource,
  type ResourceContext,
  Tool,
  type ToolContext,
} from '@pier/core';
import { z } from 'zod';
import { RED_PIXEL_PNG, SILENT_WAV } from './media.js';

/** The one resource clients may subscribe to; `update_watched_resource` changes it. */
export const WATCHED_URI = 'test://watched-resource';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// SEP-1613: a registered id puts the schema in `$defs` and references it, so the listed input schema
// keeps `$schema`, `$defs` and `additionalProperties: false` (a strict object).
const Address = z
  .object({ street: z.string().optional(), city: z.string().optional() })
  .meta({ id: 'address' });

const ARG1_SUGGESTIONS = ['paris', 'park', 'party', 'test', 'testing'];

@MCPServer({
  name: 'pier-conformance',
  version: '1.0.0',
  description: 'Everything the MCP conformance suite checks, served by Pier.',
})
export class EverythingServer {
  #watched = 'Watched resource content, version 1';

  // ---- tools: content ------------------------------------------------------------------------

  @Tool({ name: 'test_simple_text', description: 'Returns one text block' })
  simpleText() {
    return 'This is a simple text response for testing.';
  }

  @Tool({ name: 'test_image_content', description: 'Returns a 1×1 PNG image' })
  image() {
    return { content: [imageContent(RED_PIXEL_PNG, 'image/png')] };
  }

  @Tool({ name: 'test_audio_content', description: 'Returns a WAV audio clip' })
  audio() {
    return { content: [audioContent(SILENT_WAV, 'audio/wav')] };
  }

  @Tool({ name: 'test_embedded_resource', description: 'Returns an embedded text resource' })
  embedded() {
    return {
      content: [
        embeddedResource({
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        }),
      ],
    };
  }

  @Tool({ name: 'test_multiple_content_types', description: 'Returns text, an image and a resource' })
  mixed() {
    return {
      content: [
        { type: 'text' as const, text: 'Multiple content types test:' },
        imageContent(RED_PIXEL_PNG, 'image/png'),
        embeddedResource({
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: JSON.stringify({ test: 'data', value: 123 }),
        }),
      ],
    };
  }

  @Tool({ name: 'test_error_handling', description: 'Always fails' })
  failing(): never {
    throw new Error('This tool intentionally returns an error for testing');
  }

  @Tool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    input: z.strictObject({ name: z.string().optional(), address: Address.optional() }),
  })
  jsonSchema2020({
    name,
    address,
  }: {
    name?: string | undefined;
    address?: z.infer<typeof Address> | undefined;
  }) {
    return { name: name ?? null, city: address?.city ?? null };
  }

  // ---- tools: talking to the client during a call ----------------------------------------------

  @Tool({ name: 'test_tool_with_logging', description: 'Sends three log messages while it runs' })
  async logging(_args: Record<never, never>, ctx: ToolContext) {
    await ctx.sendLog('info', 'Tool execution started');
    await sleep(50);
    await ctx.sendLog('info', 'Tool processing data');
    await sleep(50);
    await ctx.sendLog('info', 'Tool execution completed');
    return 'Tool with logging executed successfully';
  }

  @Tool({ name: 'test_tool_with_progress', description: 'Reports progress 0, 50 and 100 of 100' })
  async progress(_args: Record<never, never>, ctx: ToolContext) {
    for (const [step, progress] of [0, 50, 100].entries()) {
      if (step > 0) await sleep(50);
      await ctx.reportProgress(progress, { total: 100, message: `Completed step ${progress} of 100` });
    }
    return 'Progress reported: 0, 50, 100 of 100';
  }

  @Tool({
    name: 'test_sampling',
    description: 'Asks the client’s model to answer a prompt (sampling/createMessage)',
    input: { prompt: z.string().describe('The prompt to send to the LLM') },
  })
  async sampling({ prompt }: { prompt: string }, ctx: ToolContext) {
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
      maxTokens: 100,
    });
    const blocks = Array.isArray(answer.content) ? answer.content : [answer.content];
    const text = blocks.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('');
    return `LLM response: ${text}`;
  }

  @Tool({
    name: 'test_elicitation',
    description: 'Asks the user for a name and an email (elicitation/create)',
    input: { message: z.string().describe('The message to show the user') },
  })
  async elicitation({ message }: { message: string }, ctx: ToolContext) {
    const answer = await ctx.elicit({
      message,
      requestedSchema: {
        type: 'object',
        properties: {
          username: { type: 'string', description: 'User’s response' },
          email: { type: 'string', description: 'User’s email address' },
        },
        required: ['username', 'email'],
      },
    });
    return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  @Tool({
    name: 'test_elicitation_sep1034_defaults',
    description: 'Asks for a form whose fields of every primitive type have defaults (SEP-1034)',
  })
  async elicitationDefaults(_args: Record<never, never>, ctx: ToolContext) {
    const answer = await ctx.elicit({
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: {
            type: 'string',
            description: 'User status',
            enum: ['active', 'inactive', 'pending'],
            default: 'active',
          },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  @Tool({
    name: 'test_elicitation_sep1330_enums',
    description: 'Asks for a form with the five enum variants of SEP-1330',
  })
  async elicitationEnums(_args: Record<never, never>, ctx: ToolContext) {
    const answer = await ctx.elicit({
      message: 'Please pick from each list',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  @Tool({
    name: 'test_reconnection',
    description:
      'Closes its SSE stream before answering, so the client reconnects with Last-Event-ID (SEP-1699)',
  })
  async reconnection(_args: Record<never, never>, ctx: ToolContext) {
    const closed = ctx.closeStream();
    await sleep(100);
    return closed
      ? 'Reconnection test completed: the stream was closed before this answer'
      : 'Reconnection test completed: this transport cannot resume a stream, so it stayed open';
  }

  @Tool({
    name: 'update_watched_resource',
    description: `Changes ${WATCHED_URI} and notifies its subscribers`,
    input: { content: z.string() },
  })
  async updateWatched({ content }: { content: string }, ctx: ToolContext) {
    this.#watched = content;
    await ctx.notifyResourceUpdated(WATCHED_URI);
    return `${WATCHED_URI} updated`;
  }

  // ---- resources ------------------------------------------------------------------------------

  @Resource({ uri: 'test://static-text', description: 'A static text resource', mimeType: 'text/plain' })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @Resource({ uri: 'test://static-binary', description: 'A static PNG image', mimeType: 'image/png' })
  staticBinary() {
    return RED_PIXEL_PNG;
  }

  @Resource({
    uriTemplate: 'test://template/{id}/data',
    name: 'template-data',
    description: 'Data for any id',
    mimeType: 'application/json',
    complete: { id: (typed) => ['123', '456', '789'].filter((id) => id.startsWith(typed)) },
  })
  templateData(_uri: URL, ctx: ResourceContext) {
    const id = String(ctx.variables.id);
    return { id, templateTest: true, data: `Data for ID: ${id}` };
  }

  @Resource({
    uri: WATCHED_URI,
    description: 'Changes when update_watched_resource is called; subscribe to hear about it',
    mimeType: 'text/plain',
    subscribable: true,
  })
  watched() {
    return this.#watched;
  }

  // ---- prompts ----------------------------------------------------------------------------------

  @Prompt({ name: 'test_simple_prompt', description: 'A prompt without arguments' })
  simplePrompt() {
    return 'This is a simple prompt for testing.';
  }

  @Prompt({
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two arguments (the first completes)',
    args: {
      arg1: completable(z.string().describe('First test argument'), (typed) =>
        ARG1_SUGGESTIONS.filter((value) => value.startsWith(typed)),
      ),
      arg2: z.string().describe('Second test argument'),
    },
  })
  promptWithArguments({ arg1, arg2 }: { arg1: string; arg2: string }) {
    return `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`;
  }

  @Prompt({
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds a resource',
    args: { resourceUri: z.string().describe('URI of the resource to embed') },
  })
  promptWithResource({ resourceUri }: { resourceUri: string }) {
    return [
      {
        role: 'user' as const,
        content: embeddedResource({
          uri: resourceUri,
          mimeType: 'text/plain',
          text: 'Embedded resource content for testing.',
        }),
      },
      {
        role: 'user' as const,
        content: { type: 'text' as const, text: 'Please process the embedded resource above.' },
      },
    ];
  }

  @Prompt({ name: 'test_prompt_with_image', description: 'A prompt with an image' })
  promptWithImage() {
    return [
      { role: 'user' as const, content: imageContent(RED_PIXEL_PNG, 'image/png') },
      { role: 'user' as const, content: { type: 'text' as const, text: 'Please analyze the image above.' } },
    ];
  }
}
