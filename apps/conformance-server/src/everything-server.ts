// Every tool, resource and prompt the official conformance suite's server scenarios expect, declared
// with Pier's public API only. Names, texts and shapes follow the suite's scenario descriptions
// (@modelcontextprotocol/conformance 0.2.0-alpha.12, both the 2025-11-25 and 2026-07-28 requirements).
import {
  audioContent,
  completable,
  type ElicitationResult,
  embeddedResource,
  imageContent,
  jsonSchema,
  MCPServer,
  Prompt,
  type PromptContext,
  Resource,
  type ResourceContext,
  type SamplingResult,
  Tool,
  type ToolContext,
} from '@pier/core';
import { z } from 'zod';
import { RED_PIXEL_PNG, SILENT_WAV } from './media.js';

/** The one resource clients may subscribe to; `update_watched_resource` changes it. */
export const WATCHED_URI = 'test://watched-resource';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits `ms`, or rejects as soon as `signal` aborts (a cancelled task stops at once). */
const cancellableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

// The suite's SEP-1613/SEP-2106 fixture, as it is: `$anchor`, `allOf`/`anyOf` and `if`/`then`/`else`
// have no zod equivalent, so it is declared as a raw JSON Schema and listed unchanged.
const CONTACT_SCHEMA = jsonSchema({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, not a thenable
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
});

/** A form asking for one string field, as the input-required scenarios spell it. */
const askFor = (message: string, field: string) => ({
  message,
  requestedSchema: {
    type: 'object' as const,
    properties: { [field]: { type: 'string' as const } },
    required: [field],
  },
});

/** A one-message sampling request. */
const samplingOf = (text: string, maxTokens: number) => ({
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }],
  maxTokens,
});

/** The text of a sampling answer. */
const samplingText = (answer: SamplingResult) =>
  (Array.isArray(answer.content) ? answer.content : [answer.content])
    .map((block) => (block.type === 'text' ? block.text : `[${block.type}]`))
    .join('');

/** A field of an accepted elicitation, or why there is none. */
const accepted = (answer: ElicitationResult, field: string) =>
  answer.action === 'accept' ? String(answer.content?.[field]) : `(${answer.action})`;

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
    input: CONTACT_SCHEMA,
  })
  jsonSchema2020(contact: Record<string, unknown>) {
    return `Contact ${String(contact.name ?? '(no name)')} by ${String(contact.contactMethod ?? 'email')}`;
  }

  @Tool({
    name: 'test_x_mcp_header',
    description: 'Echoes a region that clients also send as the Mcp-Param-Region header (SEP-2243)',
    input: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
      required: ['region'],
    },
  })
  xMcpHeader({ region }: Record<string, unknown>) {
    return `Region: ${String(region)}`;
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

  // ---- tools: 2026-07-28 input-required results (SEP-2322) and stateless diagnostics (SEP-2575) ----
  // Each asks with `await ctx.…`: a 2026-07-28 client gets `input_required` and calls again with the
  // answers; the method then runs again from the top and gets them.

  @Tool({ name: 'test_input_required_result_elicitation', description: 'Asks the user for a name' })
  async inputElicitation(_args: Record<never, never>, ctx: ToolContext) {
    const answer = await ctx.elicit(askFor('What is your name?', 'name'), { key: 'user_name' });
    return `Hello, ${accepted(answer, 'name')}!`;
  }

  @Tool({ name: 'test_input_required_result_sampling', description: 'Asks the client’s model a question' })
  async inputSampling(_args: Record<never, never>, ctx: ToolContext) {
    const answer = await ctx.sample(samplingOf('What is the capital of France?', 100), {
      key: 'capital_question',
    });
    return `The model answered: ${samplingText(answer)}`;
  }

  @Tool({ name: 'test_input_required_result_list_roots', description: 'Asks the client for its roots' })
  async inputListRoots(_args: Record<never, never>, ctx: ToolContext) {
    const { roots } = await ctx.listRoots({ key: 'client_roots' });
    return `Client roots: ${roots.map((root) => root.uri).join(', ') || '(none)'}`;
  }

  @Tool({
    name: 'test_input_required_result_request_state',
    description: 'Asks for a confirmation, and reports whether the signed request state came back',
  })
  async inputRequestState(_args: Record<never, never>, ctx: ToolContext) {
    // `once` runs its function in the first round only; later rounds get its value from the
    // requestState, which Pier verified (signature, request, principal) before this method ran.
    let firstRound = false;
    await ctx.once('started', () => {
      firstRound = true;
      return true;
    });
    const answer = await ctx.elicit(
      {
        message: 'Please confirm',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      },
      { key: 'confirm' },
    );
    const state = firstRound ? 'no request state came back' : 'state-ok';
    return `Confirmed: ${accepted(answer, 'ok')} (${state})`;
  }

  @Tool({
    name: 'test_input_required_result_multiple_inputs',
    description: 'Asks for a name, a greeting and the roots at once',
  })
  async inputMultiple(_args: Record<never, never>, ctx: ToolContext) {
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit(askFor('What is your name?', 'name'), { key: 'user_name' }),
      ctx.sample(samplingOf('Generate a greeting', 50), { key: 'greeting' }),
      ctx.listRoots({ key: 'client_roots' }),
    ]);
    return `${samplingText(greeting)}, ${accepted(name, 'name')}! (${roots.roots.length} roots)`;
  }

  @Tool({
    name: 'test_input_required_result_multi_round',
    description: 'Asks for a name, then for a colour, one round each',
  })
  async inputMultiRound(_args: Record<never, never>, ctx: ToolContext) {
    const name = await ctx.elicit(askFor('Step 1: What is your name?', 'name'), { key: 'step1' });
    const color = await ctx.elicit(askFor('Step 2: What is your favorite color?', 'color'), {
      key: 'step2',
    });
    return `${accepted(name, 'name')} likes ${accepted(color, 'color')}`;
  }

  @Tool({
    name: 'test_input_required_result_tampered_state',
    description: 'Asks for a name; a retry with a forged requestState is refused',
  })
  async inputTamperedState(_args: Record<never, never>, ctx: ToolContext) {
    const answer = await ctx.elicit(askFor('What is your name?', 'name'), { key: 'user_name' });
    return `Hello, ${accepted(answer, 'name')}!`;
  }

  @Tool({
    name: 'test_input_required_result_capabilities',
    description: 'Asks only what the client declared it can answer',
  })
  async inputCapabilities(_args: Record<never, never>, ctx: ToolContext) {
    const asks: Promise<unknown>[] = [];
    if (ctx.clientSupports('elicitation')) {
      asks.push(ctx.elicit(askFor('What is your name?', 'name'), { key: 'user_name' }));
    }
    if (ctx.clientSupports('sampling')) {
      asks.push(ctx.sample(samplingOf('Generate a greeting', 50), { key: 'greeting' }));
    }
    if (ctx.clientSupports('roots')) asks.push(ctx.listRoots({ key: 'client_roots' }));
    const answers = await Promise.all(asks);
    return `${answers.length} answers, one per declared capability`;
  }

  @Tool({
    name: 'test_missing_capability',
    description: 'Needs sampling: a client that did not declare it gets -32021',
  })
  async missingCapability(_args: Record<never, never>, ctx: ToolContext) {
    // Not caught: Pier answers a 2026-07-28 request with -32021 naming `sampling` (HTTP 400).
    const answer = await ctx.sample(samplingOf('Say hello', 10));
    return samplingText(answer);
  }

  @Tool({
    name: 'test_streaming_elicitation',
    description: 'Asks the user on a 2026-07-28 stream: an input_required result, never a request',
  })
  async streamingElicitation(_args: Record<never, never>, ctx: ToolContext) {
    const answer = await ctx.elicit(askFor('What should this tool say?', 'text'), { key: 'text' });
    return accepted(answer, 'text');
  }

  @Tool({
    name: 'test_logging_tool',
    description: 'Logs to the client: only when the request asked for a log level',
  })
  async loggingTool(_args: Record<never, never>, ctx: ToolContext) {
    await ctx.sendLog('info', 'test_logging_tool started');
    await ctx.sendLog('warning', 'test_logging_tool is about to finish');
    return 'Logged twice (if the request asked for logs)';
  }

  // ---- tasks (io.modelcontextprotocol/tasks, SEP-2663) -----------------------------------------

  @Tool({ name: 'greet', description: 'Greets at once (never a task)', input: { name: z.string() } })
  greet({ name }: { name: string }) {
    return `Hello, ${name}!`;
  }

  @Tool({
    name: 'slow_compute',
    description: 'Works for `seconds` seconds: a task for clients of the tasks extension',
    input: { seconds: z.number().min(0).max(600), label: z.string().optional() },
    task: 'optional',
  })
  async slowCompute({ seconds, label }: { seconds: number; label?: string | undefined }, ctx: ToolContext) {
    await cancellableSleep(seconds * 1000, ctx.signal);
    return `Computed ${label ?? 'result'} in ${seconds} s`;
  }

  @Tool({ name: 'failing_job', description: 'Reports a tool error after a second', task: 'required' })
  async failingJob(_args: Record<never, never>, ctx: ToolContext) {
    await cancellableSleep(1000, ctx.signal);
    return {
      isError: true,
      content: [{ type: 'text' as const, text: 'The job failed: nothing to process' }],
    };
  }

  @Tool({ name: 'protocol_error_job', description: 'Crashes: its task fails', task: 'optional' })
  async protocolErrorJob(_args: Record<never, never>, ctx: ToolContext) {
    await cancellableSleep(100, ctx.signal);
    throw new Error('The job crashed');
  }

  @Tool({
    name: 'confirm_delete',
    description: 'Asks the user to confirm, as a task waiting for input',
    input: { filename: z.string() },
    task: 'optional',
  })
  async confirmDelete({ filename }: { filename: string }, ctx: ToolContext) {
    const answer = await ctx.elicit({
      message: `Delete ${filename}?`,
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean' } },
        required: ['confirm'],
      },
    });
    const confirmed = answer.action === 'accept' && answer.content?.confirm === true;
    return confirmed ? `Deleted ${filename}` : `Kept ${filename}`;
  }

  @Tool({ name: 'multi_input', description: 'Asks two questions at once, as a task', task: 'optional' })
  async multiInput(_args: Record<never, never>, ctx: ToolContext) {
    const [name, confirm] = await Promise.all([
      ctx.elicit(askFor('Your name?', 'name')),
      ctx.elicit({
        message: 'Go ahead?',
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean' } },
          required: ['confirm'],
        },
      }),
    ]);
    return `name: ${accepted(name, 'name')}, confirm: ${accepted(confirm, 'confirm')}`;
  }

  @Tool({
    name: 'test_tool_with_task',
    description: 'Asks for a name on the call itself, then runs as a task',
    task: 'required',
  })
  async toolWithTask(_args: Record<never, never>, ctx: ToolContext) {
    const answer = await ctx.elicit(askFor('What is your name?', 'name'), {
      key: 'user_name',
      beforeTask: true,
    });
    await cancellableSleep(200, ctx.signal);
    return `Hello, ${accepted(answer, 'name')}! (from a task)`;
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

  @Prompt({
    name: 'test_input_required_result_prompt',
    description: 'Asks the user for context before the prompt is built (SEP-2322)',
  })
  async inputRequiredPrompt(_args: Record<never, never>, ctx: PromptContext) {
    const answer = await ctx.elicit(askFor('What context should the prompt use?', 'context'), {
      key: 'user_context',
    });
    return `Answer with this context in mind: ${accepted(answer, 'context')}`;
  }

  @Prompt({ name: 'test_prompt_with_image', description: 'A prompt with an image' })
  promptWithImage() {
    return [
      { role: 'user' as const, content: imageContent(RED_PIXEL_PNG, 'image/png') },
      { role: 'user' as const, content: { type: 'text' as const, text: 'Please analyze the image above.' } },
    ];
  }
}
