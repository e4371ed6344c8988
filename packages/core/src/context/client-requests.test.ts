// ctx.sample and ctx.elicit: a tool asking the client, seen from the SDK's own client.
import { Client, type ClientCapabilities } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineServer, defineTool } from '../declaring/define.js';
import { MissingClientCapabilityError, PierError } from '../errors.js';
import { createServer, type PierServer } from '../server/create-server.js';
import { deferred, ERAS, type Era } from '../test-helpers.js';
import { serveTransport } from '../transports/serve.js';
import type { ElicitationResult, SamplingResult } from './types.js';

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

const thrown: unknown[] = [];

const server = createServer(
  defineServer({
    name: 'asking',
    version: '1.0.0',
    tools: [
      defineTool({
        name: 'summarize',
        input: { text: z.string(), timeoutMs: z.number().optional() },
        handler: async ({ text, timeoutMs }, ctx) => {
          try {
            const answer: SamplingResult = await ctx.sample(
              {
                messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${text}` } }],
                maxTokens: 50,
              },
              timeoutMs === undefined ? {} : { timeoutMs },
            );
            return answer.content;
          } catch (error) {
            thrown.push(error);
            throw error;
          }
        },
      }),
      defineTool({
        name: 'sign_up',
        handler: async (_args, ctx) => {
          try {
            const answer: ElicitationResult = await ctx.elicit({
              message: 'Who are you?',
              requestedSchema: {
                type: 'object',
                properties: {
                  name: { type: 'string', default: 'Ada' },
                  plan: { type: 'string', enum: ['free', 'pro'] },
                },
                required: ['name'],
              },
            });
            return { action: answer.action, content: answer.content ?? null };
          } catch (error) {
            thrown.push(error);
            throw error;
          }
        },
      }),
    ],
  }),
  { handleSignals: false, logStream: { write: () => true } },
);

async function connect(
  era: Era,
  capabilities: ClientCapabilities,
  setUp: (client: Client) => void = () => {},
  target: PierServer = server,
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = await serveTransport(target, serverSide);
  const client = new Client({ name: 'asked', version: '1.0.0' }, { ...ERAS[era], capabilities });
  setUp(client);
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await handle.close();
  });
  return client;
}

describe.each(['legacy', 'legacy 2025-06-18'] as const)('over %s', (era) => {
  it('ctx.sample sends sampling/createMessage and resolves with the client’s answer', async () => {
    const asked: unknown[] = [];
    const client = await connect(era, { sampling: {} }, (c) =>
      c.setRequestHandler('sampling/createMessage', async (request) => {
        asked.push(request.params);
        return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'Short.' } };
      }),
    );
    const result = await client.callTool({ name: 'summarize', arguments: { text: 'a long story' } });
    expect(asked).toEqual([
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarize: a long story' } }],
        maxTokens: 50,
      },
    ]);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ type: 'text', text: 'Short.' });
  });

  it('ctx.elicit sends elicitation/create with the schema as given and resolves with the user’s answer', async () => {
    const asked: unknown[] = [];
    const client = await connect(era, { elicitation: {} }, (c) =>
      c.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { name: 'Grace', plan: 'pro' } };
      }),
    );
    const result = await client.callTool({ name: 'sign_up', arguments: {} });
    expect(asked).toEqual([
      {
        mode: 'form',
        message: 'Who are you?',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', default: 'Ada' },
            plan: { type: 'string', enum: ['free', 'pro'] },
          },
          required: ['name'],
        },
      },
    ]);
    expect(result.structuredContent).toEqual({ action: 'accept', content: { name: 'Grace', plan: 'pro' } });
  });

  it('ctx.elicit passes a decline through', async () => {
    const client = await connect(era, { elicitation: {} }, (c) =>
      c.setRequestHandler('elicitation/create', async () => ({ action: 'decline' })),
    );
    const result = await client.callTool({ name: 'sign_up', arguments: {} });
    expect(result.structuredContent).toEqual({ action: 'decline', content: null });
  });

  it('rejects with CLIENT_REQUEST_UNAVAILABLE, naming the capability, when the client did not declare it', async () => {
    thrown.length = 0;
    const client = await connect(era, {});
    const sampled = await client.callTool({ name: 'summarize', arguments: { text: 'x' } });
    const elicited = await client.callTool({ name: 'sign_up', arguments: {} });
    expect(sampled).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'ctx.sample: the client did not declare the sampling capability' }],
    });
    expect(elicited).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'ctx.elicit: the client did not declare the elicitation capability' }],
    });
    expect(thrown).toHaveLength(2);
    for (const error of thrown) {
      expect(error).toBeInstanceOf(PierError);
      expect((error as PierError).code).toBe('CLIENT_REQUEST_UNAVAILABLE');
      // …and, more precisely, the missing-capability error, which says what is missing.
      expect(error).toBeInstanceOf(MissingClientCapabilityError);
      expect((error as MissingClientCapabilityError).requiredCapabilities).toEqual(
        (error as Error).message.includes('sampling') ? { sampling: {} } : { elicitation: {} },
      );
    }
  });

  it('gives up after timeoutMs when the client does not answer', async () => {
    const client = await connect(era, { sampling: {} }, (c) =>
      c.setRequestHandler('sampling/createMessage', () => new Promise(() => {})),
    );
    const result = await client.callTool({ name: 'summarize', arguments: { text: 'x', timeoutMs: 50 } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/timed out/i);
  });

  it('cancels the client’s work when the call is cancelled', async () => {
    const asked = deferred();
    const cancelled = deferred();
    const client = await connect(era, { sampling: {} }, (c) =>
      c.setRequestHandler('sampling/createMessage', (_request, ctx) => {
        ctx.mcpReq.signal.addEventListener('abort', () => cancelled.resolve());
        asked.resolve();
        return new Promise(() => {});
      }),
    );
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'summarize', arguments: { text: 'x' } },
      { signal: controller.signal },
    );
    await asked.promise;
    controller.abort('user gave up');
    await expect(call).rejects.toThrow();
    await cancelled.promise;
  });
});

describe('over modern (2026-07-28): input-required rounds, answered by the SDK client', () => {
  it('ctx.sample and ctx.elicit are answered through input_required, the handler running again', async () => {
    const asked: string[] = [];
    const client = await connect('modern', { sampling: {}, elicitation: {} }, (c) => {
      c.setRequestHandler('sampling/createMessage', async () => {
        asked.push('sampling');
        return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'Short.' } };
      });
      c.setRequestHandler('elicitation/create', async (request) => {
        asked.push(`elicitation ${request.params.message}`);
        return { action: 'accept', content: { name: 'Grace', plan: 'pro' } };
      });
    });
    const sampled = await client.callTool({ name: 'summarize', arguments: { text: 'a long story' } });
    expect(sampled.isError).toBeFalsy();
    expect(sampled.structuredContent).toEqual({ type: 'text', text: 'Short.' });
    const elicited = await client.callTool({ name: 'sign_up', arguments: {} });
    expect(elicited.structuredContent).toEqual({ action: 'accept', content: { name: 'Grace', plan: 'pro' } });
    expect(asked).toEqual(['sampling', 'elicitation Who are you?']);
  });

  it('a handler that returns at once but asked first (without waiting) still asks: no round is skipped', async () => {
    let runs = 0;
    const quick = createServer(
      defineServer({
        name: 'quick',
        version: '1.0.0',
        tools: [
          defineTool({
            name: 'ask_and_go',
            // Not async: the engine answers a handler's plain value without a promise, unless it asked.
            handler: (_args, ctx) => {
              runs += 1;
              ctx
                .elicit({ message: 'Sure?', requestedSchema: { type: 'object', properties: {} } })
                .catch(() => {});
              return `run ${runs}`;
            },
          }),
        ],
      }),
      { handleSignals: false, logStream: { write: () => true } },
    );
    const asked: string[] = [];
    const client = await connect(
      'modern',
      { elicitation: {} },
      (c) =>
        c.setRequestHandler('elicitation/create', async (request) => {
          asked.push(request.params.message);
          return { action: 'accept', content: {} };
        }),
      quick,
    );
    const result = await client.callTool({ name: 'ask_and_go', arguments: {} });
    expect(asked).toEqual(['Sure?']);
    expect(result.content).toEqual([{ type: 'text', text: 'run 2' }]);
  });

  it('asking for a capability the request did not declare is the spec’s -32021, naming it', async () => {
    thrown.length = 0;
    const client = await connect('modern', {});
    const failure = await client
      .callTool({ name: 'summarize', arguments: { text: 'x' } })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: -32021 });
    expect(JSON.stringify((failure as { data?: unknown }).data)).toContain('"sampling":{}');
    expect(thrown[0]).toBeInstanceOf(MissingClientCapabilityError);
  });
});
