// Resource templates and completions, seen from the SDK's client in both eras.
import type { Client } from '@modelcontextprotocol/client';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ResourceContext } from '../context/types.js';
import { MCPServer, Prompt, Resource } from '../declaring/decorators.js';
import { defineResource, defineServer } from '../declaring/define.js';
import { PierError } from '../errors.js';
import { completable } from '../index.js';
import { createServer } from '../server/create-server.js';
import { ERAS, type Era, REVISION } from '../test-helpers.js';

const CITIES = ['Bergen', 'Oslo', 'Ostrava', 'Tromsø'];
const startingWith = (value: string) =>
  CITIES.filter((city) => city.toLowerCase().startsWith(value.toLowerCase()));

@MCPServer({ name: 'atlas', version: '1.0.0' })
class AtlasServer {
  @Resource({
    uriTemplate: 'weather://{city}/today',
    description: 'Today in a city',
    complete: { city: startingWith },
  })
  today(uri: URL, ctx: ResourceContext) {
    return { city: ctx.variables.city, uri: uri.href };
  }

  @Resource({ uri: 'weather://cities' })
  cities() {
    return CITIES.join('\n');
  }

  @Prompt({ args: { city: completable(z.string(), startingWith) } })
  plan({ city }: { city: string }) {
    return `Plan a day in ${city}.`;
  }
}

afterEach(closeAll);

async function client(era: Era): Promise<Client> {
  const server = createServer(AtlasServer, undefined, {
    handleSignals: false,
    logStream: { write: () => true },
  });
  return (await connect(server, { era: REVISION[era] })).client;
}

describe.each(Object.keys(ERAS) as Era[])('over %s', (era) => {
  it('lists templates apart from fixed resources, and reads through them', async () => {
    const c = await client(era);
    expect((await c.listResources()).resources.map((r) => r.uri)).toEqual(['weather://cities']);
    expect((await c.listResourceTemplates()).resourceTemplates).toEqual([
      expect.objectContaining({
        name: 'today',
        uriTemplate: 'weather://{city}/today',
        description: 'Today in a city',
      }),
    ]);
    const { contents } = await c.readResource({ uri: 'weather://Oslo/today' });
    expect(contents).toEqual([
      {
        uri: 'weather://Oslo/today',
        mimeType: 'application/json',
        text: '{"city":"Oslo","uri":"weather://Oslo/today"}',
      },
    ]);
  });

  it('completes template variables and prompt arguments', async () => {
    const c = await client(era);
    const variable = await c.complete({
      ref: { type: 'ref/resource', uri: 'weather://{city}/today' },
      argument: { name: 'city', value: 'os' },
    });
    expect(variable.completion.values).toEqual(['Oslo', 'Ostrava']);
    const argument = await c.complete({
      ref: { type: 'ref/prompt', name: 'plan' },
      argument: { name: 'city', value: 'b' },
    });
    expect(argument.completion.values).toEqual(['Bergen']);
  });
});

describe('template declarations', () => {
  const read = () => '';
  it.each([
    ['both a uri and a uriTemplate', { uri: 'a://b', uriTemplate: 'a://{b}' }, '"uri" must be left out'],
    [
      'a template without a scheme',
      { uriTemplate: '{city}/today' },
      '"uriTemplate" must be an RFC 6570 template',
    ],
    ['completions that are not functions', { uriTemplate: 'a://{b}', complete: { b: ['x'] } }, '"complete"'],
  ])('rejects %s', (_, fields, message) => {
    const error = (() => {
      try {
        defineResource({ name: 'r', handler: read, ...fields } as never);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(PierError);
    expect(error).toMatchObject({ code: 'DECLARATION_INVALID', message: expect.stringContaining(message) });
  });

  it('rejects two resources with one template', () => {
    const twin = { uriTemplate: 'a://{b}', handler: read };
    expect(() =>
      defineServer({
        name: 's',
        version: '1',
        resources: [
          { name: 'x', ...twin },
          { name: 'y', ...twin },
        ],
      }),
    ).toThrow(expect.objectContaining({ code: 'DUPLICATE_NAME' }));
  });
});

describe('a decorated class’s template completion', () => {
  it('runs on the instance, like the handler and list (state from the constructor)', async () => {
    @MCPServer({ name: 'rooms', version: '1.0.0' })
    class RoomsServer {
      readonly #rooms: readonly string[];
      constructor(rooms: readonly string[]) {
        this.#rooms = rooms;
      }

      @Resource({
        uriTemplate: 'rooms://{room}',
        complete: {
          room(this: RoomsServer, typed: string) {
            return this.#rooms.filter((room) => room.startsWith(typed));
          },
        },
      })
      room(uri: URL) {
        return uri.href;
      }
    }
    const server = createServer(RoomsServer, ['attic', 'atrium', 'cellar'], {
      handleSignals: false,
      logStream: { write: () => true },
    });
    const { client: c } = await connect(server, { era: REVISION.legacy });
    const completed = await c.complete({
      ref: { type: 'ref/resource', uri: 'rooms://{room}' },
      argument: { name: 'room', value: 'at' },
    });
    expect(completed.completion.values).toEqual(['attic', 'atrium']);
  });
});
