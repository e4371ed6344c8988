// The compiler checks a method against its declaration: these must fail to compile.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { PromptContext, ToolContext } from '../context/types.js';
import type { PierPlugin } from '../plugins/api.js';
import { createServer } from '../server/create-server.js';
import { MCPServer, Prompt, Resource, Tool } from './decorators.js';
import { definePrompt, defineServer, defineTool } from './define.js';
import { jsonSchema } from './schema.js';

describe('@Tool', () => {
  it('accepts a method whose argument matches the input schema', () => {
    @MCPServer({ name: 'weather', version: '1.0.0' })
    class Good {
      @Tool({ input: { city: z.string(), days: z.number().optional() } })
      forecast({ city, days }: { city: string; days?: number | undefined }, ctx: ToolContext) {
        expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
        return `${city} ${days ?? 1}`;
      }

      @Tool({ input: z.object({ city: z.string() }) })
      async objectSchema(args: { city: string }) {
        return args.city;
      }

      @Tool()
      noArguments() {
        return 'ok';
      }
    }
    expectTypeOf(Good).toBeConstructibleWith();
  });

  it('rejects a method whose argument type does not match the input schema', () => {
    @MCPServer({ name: 'weather', version: '1.0.0' })
    class Bad {
      // @ts-expect-error: city is a string in the schema
      @Tool({ input: { city: z.string() } })
      forecast({ city }: { city: number }) {
        return city;
      }

      // @ts-expect-error: the schema has no `country`
      @Tool({ input: { city: z.string() } })
      missing({ country }: { country: string }) {
        return country;
      }

      // @ts-expect-error: without `input` there are no arguments to expect
      @Tool()
      undeclared({ city }: { city: string }) {
        return city;
      }

      // @ts-expect-error: the second parameter is a ToolContext
      @Tool({ input: { city: z.string() } })
      wrongContext(_args: { city: string }, ctx: { tenant: string }) {
        return ctx.tenant;
      }
    }
    expectTypeOf(Bad).toBeConstructibleWith();
  });

  it('checks the return value against the output schema', () => {
    @MCPServer({ name: 'weather', version: '1.0.0' })
    class Output {
      @Tool({ output: { high: z.number() } })
      good() {
        return { high: 21 };
      }

      @Tool({ output: { high: z.number() } })
      asResult(): CallToolResult {
        return { content: [], structuredContent: { high: 21 } };
      }

      // @ts-expect-error: high must be a number
      @Tool({ output: { high: z.number() } })
      bad() {
        return { high: 'warm' };
      }
    }
    expectTypeOf(Output).toBeConstructibleWith();
  });
});

describe('@Resource and @Prompt', () => {
  it('check their methods too', () => {
    @MCPServer({ name: 'weather', version: '1.0.0' })
    class Members {
      @Resource({ uri: 'config://app' })
      settings(uri: URL) {
        return uri.href;
      }

      // @ts-expect-error: a resource method receives a URL
      @Resource({ uri: 'config://other' })
      wrong(uri: string) {
        return uri;
      }

      @Prompt({ args: { city: z.string() } })
      plan({ city }: { city: string }, _ctx: PromptContext) {
        return `Plan ${city}`;
      }

      // @ts-expect-error: city is a string
      @Prompt({ args: { city: z.string() } })
      badPlan({ city }: { city: boolean }) {
        return `Plan ${city}`;
      }

      // @ts-expect-error: a prompt returns text or messages
      @Prompt()
      notAPrompt() {
        return 42;
      }
    }
    expectTypeOf(Members).toBeConstructibleWith();
  });
});

describe('plain declarations', () => {
  it('type handler arguments from the schemas', () => {
    defineTool({
      name: 'forecast',
      input: { city: z.string() },
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string }>();
        return args.city;
      },
    });
    definePrompt({
      name: 'plan',
      args: { city: z.string() },
      handler: ({ city }) => city,
    });
    defineTool({
      name: 'typed',
      output: { high: z.number() },
      // @ts-expect-error: high must be a number
      handler: () => ({ high: 'warm' }),
    });
  });
});

describe('raw JSON Schema inputs and outputs', () => {
  const CITY = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const;

  it('types arguments as jsonSchema<T> declares them, and as any object without T', () => {
    defineTool({
      name: 'typed',
      input: jsonSchema<{ city: string }>(CITY),
      output: jsonSchema<{ high: number }>({ type: 'object' }),
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string }>();
        return { high: 21 };
      },
    });
    defineTool({
      name: 'plain',
      input: { type: 'object', properties: { city: { type: 'string' } } },
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        return String(args.city);
      },
    });
    defineTool({
      name: 'wrong',
      output: jsonSchema<{ high: number }>({ type: 'object' }),
      // @ts-expect-error: high must be a number
      handler: () => ({ high: 'warm' }),
    });
    defineTool({
      name: 'notObject',
      // @ts-expect-error: a JSON Schema of a tool's input describes an object
      input: { type: 'string' },
      handler: () => 'x',
    });
  });

  it('checks a decorated method against jsonSchema<T>', () => {
    @MCPServer({ name: 'weather', version: '1.0.0' })
    class JsonServer {
      @Tool({ input: jsonSchema<{ city: string }>(CITY) })
      forecast({ city }: { city: string }) {
        return city;
      }

      @Tool({ input: CITY })
      untyped(args: Record<string, unknown>) {
        return String(args.city);
      }

      // @ts-expect-error: city is a string in the declared type
      @Tool({ input: jsonSchema<{ city: string }>(CITY) })
      wrong({ city }: { city: number }) {
        return city;
      }
    }
    expectTypeOf(JsonServer).toBeConstructibleWith();
  });
});

describe('createServer', () => {
  it('passes the config the constructor asks for', () => {
    @MCPServer({ name: 'weather', version: '1.0.0' })
    class Configured {
      constructor(readonly config: { apiKey: string }) {}
    }
    @MCPServer({ name: 'plain', version: '1.0.0' })
    class Unconfigured {}

    createServer(Configured, { apiKey: 'k' });
    createServer(Unconfigured);
    // @ts-expect-error: the constructor needs a config
    createServer(Configured);
    // @ts-expect-error: apiKey is a string
    createServer(Configured, { apiKey: 1 });
  });

  it('takes plugins in the options of both forms', () => {
    @MCPServer({ name: 'weather', version: '1.0.0' })
    class Configured {
      constructor(readonly config: { apiKey: string }) {}
    }
    const db: PierPlugin = { name: 'db', setup: (ctx) => ctx.onClose(async () => {}) };
    createServer(Configured, { apiKey: 'k' }, { plugins: [db] });
    createServer(defineServer({ name: 'plain', version: '1' }), { plugins: [db], closeHookTimeoutMs: 5_000 });
    // @ts-expect-error: a plugin is { name, setup }
    createServer(Configured, { apiKey: 'k' }, { plugins: [{ name: 'db' }] });
    // @ts-expect-error: a close hook takes no argument
    createServer(Configured, { apiKey: 'k' }).onClose((reason: string) => reason);
    expectTypeOf(createServer(Configured, { apiKey: 'k' }).onClose(() => {})).toEqualTypeOf<() => void>();
  });
});

describe('asking the client and announcing changes', () => {
  it('types what ctx.sample, ctx.elicit and ctx.closeStream give, and takes subscribable', () => {
    @MCPServer({ name: 'asking', version: '1.0.0' })
    class Asking {
      @Tool()
      async ask(_args: Record<never, never>, ctx: ToolContext) {
        const answer = await ctx.sample({
          messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
          maxTokens: 10,
        });
        expectTypeOf(answer.model).toEqualTypeOf<string>();
        const form = await ctx.elicit({
          message: 'Name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        });
        expectTypeOf(form.action).toEqualTypeOf<'accept' | 'decline' | 'cancel'>();
        expectTypeOf(ctx.closeStream()).toEqualTypeOf<boolean>();
        await ctx.notifyResourceUpdated('app://status');
        await ctx.elicit({
          message: 'x',
          // @ts-expect-error: a form's properties are primitive schemas, not nested objects
          requestedSchema: { type: 'object', properties: { a: { type: 'object' } } },
        });
        return 'ok';
      }

      @Resource({ uri: 'app://status', subscribable: true })
      status() {
        return 'fine';
      }
    }
    expectTypeOf(Asking).toBeConstructibleWith();
    expectTypeOf(createServer(Asking).notifyResourceUpdated).toEqualTypeOf<(uri: string) => Promise<void>>();
  });
});
