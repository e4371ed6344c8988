// What a host of MCP Apps reads from the to-do server: the extension in the capabilities, the link in
// tools/list, the view's listing, and its contents with the MIME type and _meta.ui it is rendered with.
import { createServer } from '@pier/core';
import { connect } from '@pier/testing';
import { TodoServer } from './todo-server.js';

const viewHtml =
  '<!doctype html><meta charset="utf-8"><ul></ul><script type="module">/* the bundle */</script>';
const { client, close } = await connect(createServer(TodoServer, { viewHtml }, { handleSignals: false }));

console.log(client.getServerCapabilities()?.extensions);
const { tools } = await client.listTools();
console.dir(
  tools.map(({ name, _meta }) => ({ name, _meta })),
  { depth: null },
);
const { resources } = await client.listResources();
console.dir(resources, { depth: null });
const [view] = (await client.readResource({ uri: 'ui://todos/list' })).contents;
if (view !== undefined && 'text' in view)
  console.log({ ...view, text: `${view.text.length} characters of HTML` });
await client.callTool({ name: 'add_todo', arguments: { text: 'water the plants' } });
console.log((await client.callTool({ name: 'list_todos', arguments: {} })).content);
await close();
