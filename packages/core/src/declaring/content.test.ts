// Image, audio and embedded-resource content: the helpers, and what a client receives from a tool and
// a prompt that use them.
import type { Client } from '@modelcontextprotocol/client';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PierError } from '../errors.js';
import { createServer } from '../server/create-server.js';
import { ERAS, type Era, REVISION } from '../test-helpers.js';
import { audioContent, embeddedResource, imageContent } from './content.js';
import { definePrompt, defineServer, defineTool } from './define.js';

// A 1×1 PNG and a header-only WAV: small, real files.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);
const WAV = Buffer.from('UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=', 'base64');

describe('imageContent, audioContent', () => {
  it('encode bytes to base64, with the media type', () => {
    expect(imageContent(PNG, 'image/png')).toEqual({
      type: 'image',
      data: PNG.toString('base64'),
      mimeType: 'image/png',
    });
    expect(audioContent(new Uint8Array(WAV), 'audio/wav')).toEqual({
      type: 'audio',
      data: WAV.toString('base64'),
      mimeType: 'audio/wav',
    });
  });

  it('encode only the bytes a view covers', () => {
    const view = new Uint8Array(PNG.buffer, PNG.byteOffset + 1, 3);
    expect(imageContent(view, 'image/png').data).toBe(Buffer.from(view).toString('base64'));
  });

  it('take a base64 string as it is, and refuse one that is not base64', () => {
    expect(imageContent('AAEC', 'image/png').data).toBe('AAEC');
    expect(() => imageContent('not base64!', 'image/png')).toThrow(
      'imageContent: "data" must be bytes (a Uint8Array or Buffer) or a base64 string (got "not base64!")',
    );
  });

  it('refuse a media type that is not one', () => {
    const error = (() => {
      try {
        audioContent(WAV, 'wav');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(PierError);
    expect(error).toMatchObject({
      code: 'OPTIONS_INVALID',
      message: 'audioContent: "mimeType" must be a media type such as image/png (got "wav")',
    });
  });
});

describe('embeddedResource', () => {
  it('embeds text, or bytes as a base64 blob', () => {
    expect(embeddedResource({ uri: 'notes://1', mimeType: 'text/markdown', text: '# Hi' })).toEqual({
      type: 'resource',
      resource: { uri: 'notes://1', mimeType: 'text/markdown', text: '# Hi' },
    });
    expect(embeddedResource({ uri: 'files://logo', blob: PNG })).toEqual({
      type: 'resource',
      resource: { uri: 'files://logo', blob: PNG.toString('base64') },
    });
  });

  it('refuses a relative URI, and contents with both or neither of text and blob', () => {
    expect(() => embeddedResource({ uri: 'notes/1', text: 'x' })).toThrow('"uri" must be an absolute URI');
    const both = { uri: 'notes://1', text: 'x', blob: PNG } as unknown as Parameters<
      typeof embeddedResource
    >[0];
    expect(() => embeddedResource(both)).toThrow('one of the two');
    expect(() => embeddedResource({ uri: 'notes://1' } as never)).toThrow('one of the two');
  });
});

let clients: Client[] = [];
afterEach(closeAll);
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
});

const server = createServer(
  defineServer({
    name: 'media',
    version: '1.0.0',
    tools: [
      defineTool({
        name: 'snapshot',
        handler: () => ({
          content: [
            { type: 'text', text: 'Here it is:' },
            imageContent(PNG, 'image/png'),
            audioContent(WAV, 'audio/wav'),
            embeddedResource({ uri: 'notes://1', mimeType: 'application/json', text: '{"a":1}' }),
          ],
        }),
      }),
    ],
    prompts: [
      definePrompt({
        name: 'describe_image',
        args: { note: z.string() },
        handler: ({ note }) => [
          { role: 'user', content: imageContent(PNG, 'image/png') },
          { role: 'user', content: embeddedResource({ uri: 'notes://1', text: note }) },
        ],
      }),
    ],
  }),
  { handleSignals: false, logStream: { write: () => true } },
);

describe.each(Object.keys(ERAS) as Era[])('over %s', (era) => {
  it('a tool returns image, audio and embedded resource blocks unchanged', async () => {
    const client = (await connect(server, { era: REVISION[era] })).client;
    clients.push(client);
    const result = await client.callTool({ name: 'snapshot', arguments: {} });
    expect(result.content).toEqual([
      { type: 'text', text: 'Here it is:' },
      { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
      { type: 'audio', data: WAV.toString('base64'), mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'notes://1', mimeType: 'application/json', text: '{"a":1}' } },
    ]);
  });

  it('a prompt returns messages with image and embedded resource content', async () => {
    const client = (await connect(server, { era: REVISION[era] })).client;
    clients.push(client);
    const result = await client.getPrompt({ name: 'describe_image', arguments: { note: 'a red dot' } });
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' } },
      { role: 'user', content: { type: 'resource', resource: { uri: 'notes://1', text: 'a red dot' } } },
    ]);
  });
});
