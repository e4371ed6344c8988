// The view's script, on the extension's `App` class: it shows the result the host hands it and adds a
// to-do by calling the server's tool through the host (a view has no network access of its own).
// Bundled into view.html at build time (npm install -D @modelcontextprotocol/ext-apps esbuild).
import { App, PostMessageTransport } from '@modelcontextprotocol/ext-apps';

const app = new App({ name: 'To-dos', version: '1.0.0' });
const list = document.querySelector('ul');
const form = document.querySelector('form');
const input = document.querySelector('input');
if (list === null || form === null || input === null)
  throw new Error('view.html is missing its list or form');

function show(result: { structuredContent?: unknown }) {
  const { todos } = result.structuredContent as { todos: string[] };
  list?.replaceChildren(
    ...todos.map((text) => Object.assign(document.createElement('li'), { textContent: text })),
  );
}

app.addEventListener('toolresult', show); // the result of the model's call
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  show(await app.callServerTool({ name: 'add_todo', arguments: { text: input.value } })); // through the host
  input.value = '';
});
await app.connect(new PostMessageTransport(window.parent, window.parent));
