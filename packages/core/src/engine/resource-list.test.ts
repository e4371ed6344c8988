// A resource template's `list`: the concrete resources it serves now, in `resources/list`, in both eras.
import type { Client } from '@modelcontextprotocol/client';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { MCPServer, Resource } from '../declaring/decorators.js';
import { defineResource, defineServer } from '../declaring/define.js';
import { createServer } from '../server/create-server.js';
import { ERAS, type Era, quiet, REVISION, thrown } from '../test-helpers.js';

let clients: Client[] = [];
afterEach(closeAll);
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
});

async function client(server: Parameters<typeof connect>[0], era: Era): Promise<Client> {
  const connected = (await connect(server, { era: REVISION[era] })).client;
  clients.push(connected);
  return connected;
}

@MCPServer({ name: 'notes', version: '1.0.0' })
class NotesServer {
  readonly notes = new Map([
    ['1', 'first'],
    ['2', 'second'],
  ]);

  @Resource({ uri: 'notes://index', description: 'every note id' })
  index() {
    return [...this.notes.keys()].join('\n');
  }

  @Resource({
    uriTemplate: 'notes://{id}',
    mimeType: 'text/markdown',
    list(this: NotesServer) {
      return [...this.notes.keys()].map((id) => `notes://${id}`);
    },
  })
  note(uri: URL) {
    return this.notes.get(uri.host) ?? '';
  }
}

describe.each(Object.keys(ERAS) as Era[])('resources/list with a template list (%s)', (era) => {
  it('lists the fixed resources, then what the class instance holds now', async () => {
    const server = createServer(NotesServer, undefined, quiet);
    const listed = await (await client(server, era)).listResources();
    expect(listed.resources).toEqual([
      { uri: 'notes://index', name: 'index', description: 'every note id' },
      { uri: 'notes://1', name: 'notes://1', mimeType: 'text/markdown' },
      { uri: 'notes://2', name: 'notes://2', mimeType: 'text/markdown' },
    ]);
  });
});

describe('a plain template list', () => {
  it('takes URIs or described entries, leaves out (and logs) what the template does not match', async () => {
    const lines: string[] = [];
    const server = createServer(
      defineServer({
        name: 'users',
        version: '1.0.0',
        resources: [
          defineResource({
            name: 'user',
            uriTemplate: 'users://{id}',
            handler: (uri) => `user ${uri.host}`,
            list: async (ctx) => {
              ctx.logger.debug('listing users');
              return [
                'users://7',
                {
                  uri: 'users://8',
                  name: 'Ada',
                  title: 'Ada L.',
                  description: 'admin',
                  mimeType: 'text/plain',
                },
                'orders://1',
                { uri: 42 } as never,
              ];
            },
          }),
        ],
      }),
      { handleSignals: false, logStream: { write: (line: string) => lines.push(line) } },
    );
    const connected = await client(server, 'legacy');
    expect((await connected.listResources()).resources).toEqual([
      { uri: 'users://7', name: 'users://7' },
      { uri: 'users://8', name: 'Ada', title: 'Ada L.', description: 'admin', mimeType: 'text/plain' },
    ]);
    const warnings = lines.filter((line) => line.includes('listed resource left out'));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('orders://1');
    // The listed URIs are real: reading one works.
    expect(await connected.readResource({ uri: 'users://8' })).toMatchObject({
      contents: [{ uri: 'users://8', text: 'user 8' }],
    });
  });

  it('answers resources/list with an error when list() throws, and the server keeps serving', async () => {
    const server = createServer(
      defineServer({
        name: 'broken',
        version: '1.0.0',
        resources: [
          defineResource({
            name: 'user',
            uriTemplate: 'users://{id}',
            handler: () => 'x',
            list: () => {
              throw new Error('directory offline');
            },
          }),
        ],
      }),
      quiet,
    );
    const connected = await client(server, 'legacy');
    await expect(connected.listResources()).rejects.toThrow(/directory offline/);
    expect(await connected.readResource({ uri: 'users://1' })).toMatchObject({ contents: [{ text: 'x' }] });
  });

  it.each([
    ['a list on a fixed resource', { uri: 'a://b', list: () => [] }, '"list" must be left out'],
    [
      'a list that is not a function',
      { uriTemplate: 'a://{b}', list: ['a://c'] },
      '"list" must be a function',
    ],
  ])('rejects %s', (_, fields, message) => {
    const error = thrown(() => defineResource({ name: 'r', handler: () => '', ...fields } as never));
    expect(error).toMatchObject({ code: 'DECLARATION_INVALID', message: expect.stringContaining(message) });
  });
});
