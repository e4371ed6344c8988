// Test helper (excluded from the build): raw 2026-07-28 requests that declare the tasks extension, and
// notes added through an SDK client — what the tasks e2e tests (one process, and two on Redis) share.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export const TASKS = 'io.modelcontextprotocol/tasks';

let nextId = 1;
/** One 2026-07-28 request declaring the tasks extension; resolves with its JSON-RPC answer. */
export async function rpc(url: string, method: string, params: Record<string, unknown>, name?: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name !== undefined && { 'mcp-name': name }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'e2e-tasks', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
        },
      },
    }),
  });
  const text = await res.text();
  // A JSON answer, or an SSE stream whose last data line is the answer.
  const json = text.startsWith('{')
    ? text
    : (text
        .match(/^data: (.*)$/gm)
        ?.at(-1)
        ?.slice(6) ?? 'null');
  return JSON.parse(json) as { result?: Record<string, unknown>; error?: { code: number } };
}

/** Adds `count` notes through an SDK v2 client, `parallel` calls at a time (1: in order, Note 0 first). */
export async function addNotes(url: string, count: number, parallel = 1): Promise<void> {
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      await client.callTool({ name: 'add_note', arguments: { title: `Note ${i}`, body: `body ${i}` } });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  await client.close();
}

/** What the tests read of a `tasks/get` answer. */
export interface TaskAnswer {
  readonly taskId?: string;
  readonly status?: string;
  readonly statusMessage?: string;
  readonly result?: { readonly structuredContent?: { readonly file?: string } };
  readonly error?: unknown;
}

/** `tasks/get` through `url`, every 50 ms, until `accept` holds or `ms` passed; resolves with the last answer. */
export async function taskUntil(
  url: string,
  taskId: string,
  accept: (task: TaskAnswer) => boolean,
  ms = 20_000,
): Promise<TaskAnswer | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const task = (await rpc(url, 'tasks/get', { taskId }, taskId)).result as TaskAnswer | undefined;
    if ((task !== undefined && accept(task)) || Date.now() > deadline) return task;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether a task has ended (`completed`, `failed` or `cancelled`). */
export const isFinal = (task: TaskAnswer) => ['completed', 'failed', 'cancelled'].includes(task.status ?? '');
