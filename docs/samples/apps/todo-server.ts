// A to-do list with an interactive view (MCP Apps): `list_todos` links the view `ui://todos/list`, which
// hosts of the extension show in a sandboxed frame beside the tool's result.
import { MCPServer, Resource, Tool } from '@pier/core';
import { z } from 'zod';

interface Config {
  /** The view's HTML: one self-contained file, built at build time (see main.ts). */
  readonly viewHtml: string;
}

@MCPServer({ name: 'todos', version: '1.0.0' })
export class TodoServer {
  readonly #todos: string[] = [];

  constructor(private readonly config: Config) {}

  @Tool({
    name: 'list_todos',
    description: 'Show the to-do list',
    // Hosts of MCP Apps show the view with the result; other clients read the JSON.
    _meta: { ui: { resourceUri: 'ui://todos/list' } },
  })
  list() {
    return { todos: this.#todos };
  }

  @Tool({ name: 'add_todo', description: 'Add a to-do', input: { text: z.string().min(1) } })
  add({ text }: { text: string }) {
    this.#todos.push(text);
    return { todos: this.#todos };
  }

  // Served as text/html;profile=mcp-app (the default for ui://). No CSP domains: the host's strictest policy.
  @Resource({ uri: 'ui://todos/list', title: 'To-dos', _meta: { ui: { prefersBorder: true } } })
  view() {
    return this.config.viewHtml;
  }
}
