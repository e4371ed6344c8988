// `icons`, `title` and `_meta` over real HTTP, as each official client reads them: SDK v2 on 2026-07-28 and
// on 2025-11-25, and SDK v1. Listings (tools, resources, templates, prompts), the server's own icons, the
// MCP Apps link and view metadata, and the `_meta` a handler puts on its result.
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  APP_MIME_TYPE,
  APPS_EXTENSION_ID,
  createServer,
  defineServer,
  type Icon,
  type PierServer,
} from '@pier/core';
import { closeAll, connect } from '@pier/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PNG: Icon = {
  src: 'https://example.com/notes-48.png',
  mimeType: 'image/png',
  sizes: ['48x48'],
  theme: 'light',
};
const SVG: Icon = {
  src: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=',
  sizes: ['any'],
};
const VIEW_META = { ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true } };

const declaration = defineServer({
  name: 'notes',
  version: '1.2.3',
  title: 'Notes',
  icons: [PNG, SVG],
  websiteUrl: 'https://example.com/notes',
  tools: [
    {
      name: 'list_notes',
      title: 'List notes',
      icons: [SVG],
      _meta: { ui: { resourceUri: 'ui://notes/board' }, 'com.example/cost': 1 },
      handler: () => ({
        content: [{ type: 'text', text: 'two notes' }],
        _meta: { 'com.example/page': { next: null, size: 2 } },
      }),
    },
    {
      name: 'refresh_board',
      _meta: { ui: { resourceUri: 'ui://notes/board', visibility: ['app'] } },
      handler: () => 'refreshed',
    },
  ],
  resources: [
    {
      name: 'board',
      uri: 'ui://notes/board',
      title: 'Notes board',
      icons: [PNG],
      _meta: VIEW_META,
      handler: () => '<!doctype html><title>Notes</title>',
    },
    {
      name: 'note',
      uriTemplate: 'notes://{id}',
      title: 'One note',
      icons: [SVG],
      _meta: { 'com.example/kind': 'note' },
      list: () => [{ uri: 'notes://1', name: 'First', icons: [PNG], _meta: { 'com.example/pinned': true } }],
      handler: (uri) => ({
        contents: [{ uri: uri.href, text: 'one', _meta: { 'com.example/etag': 'v1' } }],
        _meta: { 'com.example/source': 'disk' },
      }),
    },
  ],
  prompts: [
    {
      name: 'summarize',
      title: 'Summarize',
      icons: [SVG],
      _meta: { 'com.example/model': 'small' },
      handler: () => ({
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarize my notes' } }],
        _meta: { 'com.example/tokens': 4 },
      }),
    },
  ],
});

/** What each client line returns, for the calls these tests make. */
interface AnyClient {
  listTools(): Promise<{ tools: Record<string, unknown>[] }>;
  listResources(): Promise<{ resources: Record<string, unknown>[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: Record<string, unknown>[] }>;
  listPrompts(): Promise<{ prompts: Record<string, unknown>[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<Record<string, unknown>>;
  readResource(params: { uri: string }): Promise<Record<string, unknown>>;
  getPrompt(params: { name: string }): Promise<Record<string, unknown>>;
  getServerVersion(): Record<string, unknown> | undefined;
  getServerCapabilities(): { extensions?: Record<string, unknown> } | undefined;
  close(): Promise<void>;
}

const CLIENTS = {
  'SDK v2, 2026-07-28': async (url: string) => (await connect(url, { era: '2026-07-28' })).client,
  'SDK v2, 2025-11-25': async (url: string) => (await connect(url, { era: '2025-11-25' })).client,
  'SDK v1': async (url: string) => {
    const client = new V1Client({ name: 'meta-v1', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(url)));
    return client;
  },
} as const;

let server: PierServer;
let url: string;

beforeAll(async () => {
  server = createServer(declaration, { handleSignals: false, logStream: { write: () => true } });
  ({ url } = await server.listen({ transport: 'streamable-http', port: 0 }));
});

afterAll(async () => {
  await closeAll();
  await server.close();
});

describe.each(Object.keys(CLIENTS) as (keyof typeof CLIENTS)[])(
  'icons, title and _meta reach the %s client',
  (kind) => {
    let client: AnyClient;
    beforeAll(async () => {
      client = (await CLIENTS[kind](url)) as unknown as AnyClient;
    });
    afterAll(async () => {
      await client.close();
    });

    it('the server’s title, icons and website, and the MCP Apps extension', () => {
      expect(client.getServerVersion()).toMatchObject({
        name: 'notes',
        version: '1.2.3',
        title: 'Notes',
        icons: [PNG, SVG],
        websiteUrl: 'https://example.com/notes',
      });
      expect(client.getServerCapabilities()?.extensions?.[APPS_EXTENSION_ID]).toEqual({});
    });

    it('tools/list: title, icons, the view link under both keys, visibility, keys of its own', async () => {
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === 'list_notes')).toMatchObject({
        title: 'List notes',
        icons: [SVG],
        _meta: {
          ui: { resourceUri: 'ui://notes/board' },
          'ui/resourceUri': 'ui://notes/board',
          'com.example/cost': 1,
        },
      });
      expect(tools.find((tool) => tool.name === 'refresh_board')?._meta).toEqual({
        ui: { resourceUri: 'ui://notes/board', visibility: ['app'] },
        'ui/resourceUri': 'ui://notes/board',
      });
    });

    it('resources/list and resources/templates/list: the view’s MIME type and _meta.ui, icons of listed resources', async () => {
      const { resources } = await client.listResources();
      expect(resources).toEqual([
        {
          uri: 'ui://notes/board',
          name: 'board',
          title: 'Notes board',
          mimeType: APP_MIME_TYPE,
          icons: [PNG],
          _meta: VIEW_META,
        },
        // A template's resource: the template's title and _meta, then its own icons and keys.
        expect.objectContaining({
          uri: 'notes://1',
          name: 'First',
          title: 'One note',
          icons: [PNG],
          _meta: { 'com.example/kind': 'note', 'com.example/pinned': true },
        }),
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates).toEqual([
        expect.objectContaining({
          uriTemplate: 'notes://{id}',
          title: 'One note',
          icons: [SVG],
          _meta: { 'com.example/kind': 'note' },
        }),
      ]);
    });

    it('prompts/list: title, icons and _meta', async () => {
      const { prompts } = await client.listPrompts();
      expect(prompts).toEqual([
        expect.objectContaining({
          name: 'summarize',
          title: 'Summarize',
          icons: [SVG],
          _meta: { 'com.example/model': 'small' },
        }),
      ]);
    });

    it('results: a tool’s, a prompt’s and a read’s own _meta; the view’s _meta.ui on its contents', async () => {
      const called = await client.callTool({ name: 'list_notes', arguments: {} });
      expect(called._meta).toMatchObject({ 'com.example/page': { next: null, size: 2 } });
      const prompt = await client.getPrompt({ name: 'summarize' });
      expect(prompt._meta).toMatchObject({ 'com.example/tokens': 4 });
      const note = await client.readResource({ uri: 'notes://1' });
      expect(note._meta).toMatchObject({ 'com.example/source': 'disk' });
      expect(note.contents).toEqual([{ uri: 'notes://1', text: 'one', _meta: { 'com.example/etag': 'v1' } }]);
      const view = await client.readResource({ uri: 'ui://notes/board' });
      expect(view.contents).toEqual([
        {
          uri: 'ui://notes/board',
          mimeType: APP_MIME_TYPE,
          text: '<!doctype html><title>Notes</title>',
          _meta: VIEW_META,
        },
      ]);
    });
  },
);
