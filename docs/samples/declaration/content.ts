// Content blocks from bytes: a tool that answers with an image and an embedded resource.
import { createServer, defineServer, defineTool, embeddedResource, imageContent } from '@pier/core';
import { connect } from '@pier/testing';

// The first bytes of a PNG file; `imageContent` base64-encodes bytes (a Uint8Array or a Buffer) for you.
const png = new Uint8Array([137, 80, 78, 71]);

const chart = defineTool({
  name: 'chart',
  description: 'The chart, and the data behind it',
  handler: () => ({
    content: [
      imageContent(png, 'image/png'),
      embeddedResource({ uri: 'data://sales', mimeType: 'text/csv', text: 'month,total\njan,12\n' }),
    ],
  }),
});

const server = createServer(defineServer({ name: 'charts', version: '1.0.0', tools: [chart] }), {
  handleSignals: false,
});
const { client, close } = await connect(server);
console.dir((await client.callTool({ name: 'chart', arguments: {} })).content, { depth: null });
try {
  imageContent('not base64!', 'image/png');
} catch (error) {
  console.log((error as { code: string }).code, (error as Error).message);
}
await close();
