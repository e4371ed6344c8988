// Titles, icons and _meta on the server and its tools, and _meta on a result.
import { createServer, MCPServer, Tool } from '@pier/core';
import { connect } from '@pier/testing';

@MCPServer({
  name: 'notes',
  version: '1.0.0',
  title: 'Notes',
  icons: [{ src: 'https://example.com/notes.png', sizes: ['48x48'] }],
})
class NotesServer {
  @Tool({
    title: 'List notes',
    icons: [{ src: 'data:image/svg+xml;base64,PHN2Zy8+', mimeType: 'image/svg+xml', sizes: ['any'] }],
    _meta: { 'com.example/cost': 1 },
  })
  list() {
    // Returning the whole result puts _meta on it.
    return { content: [{ type: 'text' as const, text: 'two notes' }], _meta: { 'com.example/page': 1 } };
  }
}

const { client, close } = await connect(createServer(NotesServer, undefined, { handleSignals: false }), {
  era: '2025-11-25',
});
console.dir(client.getServerVersion(), { depth: null });
console.dir((await client.listTools()).tools, { depth: null });
console.log(await client.callTool({ name: 'list', arguments: {} }));
await close();
