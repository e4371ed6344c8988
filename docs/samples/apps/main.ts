// The to-do server over streamable HTTP, its view read once from the file the build wrote beside it.
import { readFile } from 'node:fs/promises';
import { createServer } from '@pier/core';
import { TodoServer } from './todo-server.js';

const viewHtml = await readFile(new URL('./view.html', import.meta.url), 'utf8');
const server = createServer(TodoServer, { viewHtml });
const { url } = await server.listen({ transport: 'streamable-http', port: 3000 });
console.error(`MCP on ${url}`);
