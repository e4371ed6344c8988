// The SDK's own client, over an in-memory link, for both protocol eras: what clients see.
import type { Client } from '@modelcontextprotocol/client';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolContext } from '../context/types.js';
import { MCPServer, Prompt, Resource, Tool } from '../declaring/decorators.js';
import { defineServer, defineTool } from '../declaring/define.js';
import { createServer } from '../server/create-server.js';
import { ERAS, type Era, REVISION } from '../test-helpers.js';

interface Config {
  readonly unit: 'C' | 'F';
}

@MCPServer({ name: 'weather', version: '1.2.3', title: 'Weather', instructions: 'Ask for a forecast.' })
class WeatherServer {
  constructor(private readonly config: Config) {}

  @Tool({ description: 'Forecast for a city', input: { city: z.string().describe('City name') } })
  async forecast({ city }: { city: string }) {
    return `Sunny in ${city}, 21°${this.config.unit}`;
  }

  @Tool({ description: 'Today in numbers', output: { high: z.number(), low: z.number() } })
  today() {
    return { high: 21, low: 12 };
  }

  @Tool({ description: 'An object without an output schema' })
  station() {
    return { id: 'OSL', elevation: 94 };
  }

  @Tool({ name: 'raw-result', description: 'A full CallToolResult' })
  raw() {
    return { content: [{ type: 'text' as const, text: 'as is' }], _meta: { note: 'kept' } };
  }

  @Tool({ description: 'Always fails' })
  explode(): string {
    const error = new Error('the weather station is on fire');
    error.stack = 'SECRET STACK at /srv/app.js:1:1';
    throw error;
  }

  @Tool({ description: 'Reports progress', input: z.object({ steps: z.number().int().min(1) }) })
  async count({ steps }: { steps: number }, ctx: ToolContext) {
    for (let step = 1; step <= steps; step++) await ctx.reportProgress(step, { total: steps });
    return `counted to ${steps}`;
  }

  @Resource({ uri: 'config://units', description: 'Units in use' })
  units() {
    return { unit: this.config.unit };
  }

  @Resource({ uri: 'text://motd', name: 'motd', mimeType: 'text/markdown' })
  messageOfTheDay() {
    return '# Bring an umbrella';
  }

  @Resource({ uri: 'blob://icon' })
  icon() {
    return new Uint8Array([0, 1, 2, 255]);
  }

  @Prompt({ description: 'Plan a day', args: { city: z.string() } })
  plan({ city }: { city: string }) {
    return `Plan a rainy day in ${city}.`;
  }
}

let clients: Client[] = [];
let logs = '';
const logStream = { write: (line: string) => (logs += line) };
afterEach(closeAll);
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
  logs = '';
});

async function client(
  era: Era,
  server = createServer(WeatherServer, { unit: 'C' }, { handleSignals: false, logStream }),
) {
  const connected = (await connect(server, { era: REVISION[era] })).client;
  clients.push(connected);
  return connected;
}

describe.each(Object.keys(ERAS) as Era[])('over %s', (era) => {
  it('negotiates the era the client asked for', async () => {
    const c = await client(era);
    expect(c.getProtocolEra()).toBe(era === 'modern' ? 'modern' : 'legacy');
    const expected = { modern: '2026-07-28', legacy: '2025-11-25', 'legacy 2025-06-18': '2025-06-18' }[era];
    expect(c.getNegotiatedProtocolVersion()).toBe(expected);
    expect(c.getServerVersion()).toMatchObject({ name: 'weather', version: '1.2.3', title: 'Weather' });
    expect(c.getInstructions()).toBe('Ask for a forecast.');
  });

  it('lists the tools with JSON Schemas built from zod', async () => {
    const { tools } = await (await client(era)).listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'forecast',
      'today',
      'station',
      'raw-result',
      'explode',
      'count',
    ]);
    const forecast = tools.find((t) => t.name === 'forecast');
    expect(forecast?.description).toBe('Forecast for a city');
    expect(forecast?.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' } },
      required: ['city'],
    });
    expect(tools.find((t) => t.name === 'explode')?.inputSchema).toEqual({ type: 'object', properties: {} });
    expect(tools.find((t) => t.name === 'today')?.outputSchema).toMatchObject({
      type: 'object',
      required: ['high', 'low'],
    });
  });

  it('calls a tool on the one instance built with the config', async () => {
    const result = await (await client(era)).callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Sunny in Oslo, 21°C' }]);
    expect(result.isError).toBeFalsy();
  });

  it('turns a returned object into structured content plus its JSON text', async () => {
    const c = await client(era);
    const today = await c.callTool({ name: 'today', arguments: {} });
    expect(today.structuredContent).toEqual({ high: 21, low: 12 });
    expect(today.content).toEqual([{ type: 'text', text: '{"high":21,"low":12}' }]);
    const station = await c.callTool({ name: 'station', arguments: {} });
    expect(station.structuredContent).toEqual({ id: 'OSL', elevation: 94 });
  });

  it('passes a full CallToolResult through', async () => {
    const result = await (await client(era)).callTool({ name: 'raw-result', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'as is' }]);
    expect(result.structuredContent).toBeUndefined();
  });

  it('answers a thrown error with a tool error carrying the message only, and keeps serving', async () => {
    const c = await client(era);
    const result = await c.callTool({ name: 'explode', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'the weather station is on fire' }]);
    expect(JSON.stringify(result)).not.toContain('SECRET STACK');
    const next = await c.callTool({ name: 'forecast', arguments: { city: 'Bergen' } });
    expect(next.content).toEqual([{ type: 'text', text: 'Sunny in Bergen, 21°C' }]);
    expect(logs).toMatch(
      / WARN {2}\[weather\/tool:explode\] tool failed error="the weather station is on fire"\n/,
    );
    expect(logs).not.toContain('SECRET STACK');
  });

  it('rejects arguments that do not match the input schema before the method runs', async () => {
    const result = await (await client(era)).callTool({ name: 'forecast', arguments: { city: 42 } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('city');
  });

  it('reports progress to a client that asked for it', async () => {
    const seen: number[] = [];
    const result = await (await client(era)).callTool(
      { name: 'count', arguments: { steps: 3 } },
      { onprogress: (progress) => seen.push(progress.progress) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'counted to 3' }]);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('reads resources as JSON, text and blobs', async () => {
    const c = await client(era);
    const { resources } = await c.listResources();
    expect(resources.map((r) => [r.name, r.uri])).toEqual([
      ['units', 'config://units'],
      ['motd', 'text://motd'],
      ['icon', 'blob://icon'],
    ]);
    expect((await c.readResource({ uri: 'config://units' })).contents).toEqual([
      { uri: 'config://units', mimeType: 'application/json', text: '{"unit":"C"}' },
    ]);
    expect((await c.readResource({ uri: 'text://motd' })).contents).toEqual([
      { uri: 'text://motd', mimeType: 'text/markdown', text: '# Bring an umbrella' },
    ]);
    expect((await c.readResource({ uri: 'blob://icon' })).contents).toEqual([
      { uri: 'blob://icon', mimeType: 'application/octet-stream', blob: 'AAEC/w==' },
    ]);
  });

  it('lists and gets prompts with their arguments', async () => {
    const c = await client(era);
    const { prompts } = await c.listPrompts();
    expect(prompts).toEqual([
      expect.objectContaining({
        name: 'plan',
        arguments: [expect.objectContaining({ name: 'city', required: true })],
      }),
    ]);
    const prompt = await c.getPrompt({ name: 'plan', arguments: { city: 'Tromsø' } });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Plan a rainy day in Tromsø.' } },
    ]);
  });
});

describe('a server declared without decorators', () => {
  it('serves the same way', async () => {
    const echo = defineTool({
      name: 'echo',
      input: { text: z.string() },
      handler: ({ text }) => text.toUpperCase(),
    });
    const server = createServer(defineServer({ name: 'plain', version: '1', tools: [echo] }), {
      handleSignals: false,
      logStream,
    });
    const c = await client('modern', server);
    expect((await c.callTool({ name: 'echo', arguments: { text: 'hi' } })).content).toEqual([
      { type: 'text', text: 'HI' },
    ]);
    // Only what is declared is advertised.
    expect(c.getServerCapabilities()?.tools).toBeDefined();
    expect(c.getServerCapabilities()?.resources).toBeUndefined();
    expect(c.getServerCapabilities()?.prompts).toBeUndefined();
  });
});

describe('schemas', () => {
  it('converts each schema to JSON Schema once, not once per request', async () => {
    const input = z.object({ city: z.string() });
    const standard = input['~standard'] as unknown as {
      jsonSchema: { input: (options: unknown) => Record<string, unknown> };
    };
    const convert = standard.jsonSchema.input;
    let conversions = 0;
    standard.jsonSchema.input = (options) => {
      conversions++;
      return convert(options);
    };
    const tool = defineTool({ name: 'forecast', input, handler: ({ city }) => city });
    const server = createServer(defineServer({ name: 'cached', version: '1', tools: [tool] }), {
      handleSignals: false,
      logStream,
    });
    for (const era of Object.keys(ERAS) as Era[]) {
      const c = await client(era, server);
      await c.listTools();
      await c.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
    }
    expect(conversions).toBe(1);
  });
});
