// `icons`, `title` and `_meta` on every declaration, MCP Apps links, and the errors a bad one gets at
// declaration time; what clients of both eras receive.
import type { Client } from '@modelcontextprotocol/client';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { APP_MIME_TYPE, APPS_EXTENSION_ID } from '../extensions/apps.js';
import { createServer } from '../server/create-server.js';
import { ERAS, type Era, quiet, REVISION, thrown } from '../test-helpers.js';
import { MCPServer, Prompt, Resource, Tool } from './decorators.js';
import { defineServer, defineTool } from './define.js';
import type { Icon } from './meta.js';

afterEach(closeAll);

const ICON: Icon = {
  src: 'https://example.com/notes.png',
  mimeType: 'image/png',
  sizes: ['48x48'],
  theme: 'light',
};
const SVG: Icon = { src: 'data:image/svg+xml;base64,PHN2Zy8+', sizes: ['any'] };

@MCPServer({
  name: 'notes',
  version: '1.0.0',
  title: 'Notes',
  icons: [ICON],
  websiteUrl: 'https://example.com/notes',
  _meta: { 'com.example/tier': 'gold' },
})
class NotesServer {
  @Tool({
    title: 'List notes',
    icons: [SVG],
    _meta: { ui: { resourceUri: 'ui://notes/board' }, 'com.example/cost': 1 },
  })
  list_notes() {
    return { content: [{ type: 'text', text: 'two notes' }], _meta: { 'com.example/page': 1 } };
  }

  @Tool({ _meta: { ui: { resourceUri: 'ui://notes/board', visibility: ['app'] } } })
  delete_note() {
    return 'deleted';
  }

  // The older flat key alone, as hosts from before `_meta.ui` read it.
  @Tool({ _meta: { 'ui/resourceUri': 'ui://notes/board', ui: { visibility: ['model'] } } })
  show_board() {
    return 'board';
  }

  @Resource({
    uri: 'ui://notes/board',
    title: 'Notes board',
    icons: [ICON],
    _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true } },
  })
  board() {
    return '<!doctype html><title>Notes</title>';
  }

  @Resource({
    uriTemplate: 'notes://{id}',
    icons: [SVG],
    _meta: { 'com.example/kind': 'note' },
    list: () => ['notes://1'],
  })
  note(uri: URL) {
    return `note ${uri.host}`;
  }

  @Prompt({ title: 'Summarize', icons: [SVG], _meta: { 'com.example/model': 'small' } })
  summarize() {
    return 'Summarize my notes';
  }
}

async function client(era: Era): Promise<Client> {
  return (await connect(createServer(NotesServer, undefined, quiet), { era: REVISION[era] })).client;
}

describe.each(Object.keys(ERAS) as Era[])('icons, title and _meta (%s)', (era) => {
  it('are listed with tools, resources, templates and prompts', async () => {
    const mcp = await client(era);
    const { tools } = await mcp.listTools();
    expect(tools.find((tool) => tool.name === 'list_notes')).toMatchObject({
      title: 'List notes',
      icons: [SVG],
      _meta: {
        ui: { resourceUri: 'ui://notes/board' },
        'ui/resourceUri': 'ui://notes/board',
        'com.example/cost': 1,
      },
    });
    expect(tools.find((tool) => tool.name === 'delete_note')?._meta).toEqual({
      ui: { resourceUri: 'ui://notes/board', visibility: ['app'] },
      'ui/resourceUri': 'ui://notes/board',
    });
    // Declared with the flat key only: listed under both, as the extension's registerAppTool does.
    expect(tools.find((tool) => tool.name === 'show_board')?._meta).toEqual({
      ui: { resourceUri: 'ui://notes/board', visibility: ['model'] },
      'ui/resourceUri': 'ui://notes/board',
    });
    const { resources } = await mcp.listResources();
    expect(resources.find((resource) => resource.uri === 'ui://notes/board')).toEqual({
      uri: 'ui://notes/board',
      name: 'board',
      title: 'Notes board',
      mimeType: APP_MIME_TYPE,
      icons: [ICON],
      _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true } },
    });
    expect(resources.find((resource) => resource.uri === 'notes://1')).toMatchObject({
      icons: [SVG],
      _meta: { 'com.example/kind': 'note' },
    });
    const { resourceTemplates } = await mcp.listResourceTemplates();
    expect(resourceTemplates[0]).toMatchObject({ icons: [SVG], _meta: { 'com.example/kind': 'note' } });
    const { prompts } = await mcp.listPrompts();
    expect(prompts[0]).toMatchObject({
      title: 'Summarize',
      icons: [SVG],
      _meta: { 'com.example/model': 'small' },
    });
  });

  it('reach results: a tool result’s own _meta, a view’s _meta.ui on the contents it reads as', async () => {
    const mcp = await client(era);
    const result = await mcp.callTool({ name: 'list_notes', arguments: {} });
    expect(result._meta).toMatchObject({ 'com.example/page': 1 });
    const read = await mcp.readResource({ uri: 'ui://notes/board' });
    expect(read.contents).toEqual([
      {
        uri: 'ui://notes/board',
        mimeType: APP_MIME_TYPE,
        text: '<!doctype html><title>Notes</title>',
        _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true } },
      },
    ]);
  });

  it('the server’s icons and website reach the client, and MCP Apps is advertised', async () => {
    const mcp = await client(era);
    expect(mcp.getServerVersion()).toMatchObject({
      name: 'notes',
      title: 'Notes',
      icons: [ICON],
      websiteUrl: 'https://example.com/notes',
    });
    expect(mcp.getServerCapabilities()?.extensions?.[APPS_EXTENSION_ID]).toEqual({});
  });
});

describe('MCP Apps is advertised only when used', () => {
  it.each(Object.keys(ERAS) as Era[])('a server without views leaves it out (%s)', async (era) => {
    const plain = defineServer({
      name: 'plain',
      version: '1.0.0',
      tools: [{ name: 'hi', _meta: { 'com.example/x': true }, handler: () => 'hi' }],
    });
    const mcp = (await connect(createServer(plain, quiet), { era: REVISION[era] })).client;
    expect(mcp.getServerCapabilities()?.extensions?.[APPS_EXTENSION_ID]).toBeUndefined();
  });
});

describe('bad declarations fail where they are declared, naming them', () => {
  const tool = (fields: object) => () => defineTool({ name: 'pick', handler: () => 'ok', ...fields });

  it.each([
    [
      { icons: [{ mimeType: 'image/png' }] },
      'defineTool: "icons[0].src" must be an https:, http: or data: URI (got nothing)',
    ],
    [{ icons: [{ src: 'javascript:alert(1)' }] }, '"icons[0].src" must be an https:, http: or data: URI'],
    [
      { icons: [{ src: 'https://x.test/a.png', theme: 'blue' }] },
      `"icons[0].theme" must be 'light' or 'dark'`,
    ],
    [
      { icons: [{ src: 'https://x.test/a.png', sizes: ['big'] }] },
      '"icons[0].sizes" must be an array of sizes',
    ],
    [{ icons: 'https://x.test/a.png' }, '"icons" must be an array'],
    [{ _meta: 'x' }, '"_meta" must be a plain object'],
    [{ _meta: { progressToken: 1 } }, '"_meta["progressToken"]" must be a key the protocol does not reserve'],
    [
      { _meta: { 'io.modelcontextprotocol/related-task': {} } },
      'must be a key the protocol does not reserve',
    ],
    [
      { _meta: { 'dev.mcp/thing': 1 } },
      '"_meta["dev.mcp/thing"]" must be a prefix of your own: this one is reserved for MCP',
    ],
    [
      { _meta: { 'com.example/-bad': 1 } },
      '"_meta["com.example/-bad"]" must be a key of an optional reverse-DNS prefix',
    ],
    [{ _meta: { '1com/x': 1 } }, 'must be a key of an optional reverse-DNS prefix'],
    [{ _meta: { 'com.example/fn': () => 1 } }, '"_meta["com.example/fn"]" must be a JSON value'],
    [{ _meta: { ui: { resourceUri: 'https://x.test/view' } } }, '"_meta.ui.resourceUri" must be a ui:// URI'],
    [
      { _meta: { ui: { resourceUri: 'ui://a/b', visibility: ['user'] } } },
      `"_meta.ui.visibility" must be a non-empty array of 'model' and 'app'`,
    ],
    [
      { _meta: { ui: { resourceUri: 'ui://a/b', csp: {} } } },
      'without csp and permissions: they belong on the ui:// resource',
    ],
  ])('%j', (fields, message) => {
    expect(thrown(tool(fields)).message).toContain(message);
  });

  it('accepts keys the specification allows, official extensions’ prefixes included', () => {
    expect(() =>
      tool({
        _meta: {
          priority: 1,
          'com.example.mcp/x': 1,
          'io.modelcontextprotocol/ui': {},
          'io.modelcontextprotocol.skills/x': 'y',
          'com.example/': null,
          'a.b-c.d/x_y.z-1': [1, { a: 'b' }],
        },
      })(),
    ).not.toThrow();
  });

  it('a ui:// resource with another MIME type names the resource', () => {
    const error = thrown(() =>
      createServer(
        defineServer({
          name: 'apps',
          version: '1.0.0',
          resources: [{ name: 'board', uri: 'ui://notes/board', mimeType: 'text/html', handler: () => '' }],
        }),
        quiet,
      ),
    );
    expect(error.message).toBe(
      `defineServer: resources[0]: "mimeType" must be ${APP_MIME_TYPE} for a ui:// resource (left out, it is the default) (got "text/html")`,
    );
  });

  it('_meta.ui on a resource that is not a view is refused', () => {
    const error = thrown(() =>
      defineServer({
        name: 'apps',
        version: '1.0.0',
        resources: [
          { name: 'cfg', uri: 'config://app', _meta: { ui: { prefersBorder: true } }, handler: () => '' },
        ],
      }),
    );
    expect(error.message).toContain('resources[0]: "_meta.ui" must be set only on a ui:// resource');
  });

  it('a tool linked to a view nobody declares fails at createServer, naming the tool', () => {
    const declaration = defineServer({
      name: 'apps',
      version: '1.0.0',
      tools: [
        { name: 'list_notes', _meta: { ui: { resourceUri: 'ui://notes/missing' } }, handler: () => '' },
      ],
      resources: [{ name: 'board', uri: 'ui://notes/board', handler: () => '' }],
    });
    const error = thrown(() => createServer(declaration, quiet));
    expect(error.message).toBe(
      'createServer: tool "list_notes": "_meta.ui.resourceUri" must be the URI of a ui:// resource the server declares (got "ui://notes/missing")',
    );
  });

  it('a decorated class with a bad server icon names the class', () => {
    const error = thrown(() => {
      @MCPServer({ name: 'x', version: '1.0.0', icons: [{ src: 'file:///etc/passwd' }] })
      class Bad {}
      return Bad;
    });
    expect(error.message).toContain('"icons[0].src" must be an https:, http: or data: URI');
    expect(error.message).toContain('Bad');
  });
});
