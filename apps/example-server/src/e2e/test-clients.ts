// Test helpers (not built): the SDK clients of both lines, connected to the app, and one scenario that
// every client runs through.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect } from '@pier/testing';
import { expect } from 'vitest';
import { APP_DIR, baseEnv, MAIN, TEST_API_KEY } from './test-app.js';

/** The clients under test: SDK v2 negotiating (lands on 2026-07-28), SDK v2 pinned to 2025, SDK v1. */
export const CLIENT_KINDS = ['v2 auto', 'v2 legacy', 'v1'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

/** The protocol revision each kind must end up speaking. */
export const EXPECTED_VERSION: Record<ClientKind, string> = {
  'v2 auto': '2026-07-28',
  'v2 legacy': '2025-11-25',
  v1: '2025-11-25',
};

/** What the scenario uses; both SDK lines' clients have these methods. */
export interface AnyClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  readResource(params: {
    uri: string;
  }): Promise<{ contents: { uri: string; mimeType?: string | undefined }[] }>;
  getPrompt(params: {
    name: string;
    arguments?: Record<string, string>;
  }): Promise<{ messages: { role: string; content: unknown }[] }>;
  close(): Promise<void>;
}

/** A connected client and the protocol revision it negotiated. */
export interface Connected {
  readonly client: AnyClient;
  readonly protocolVersion: string | undefined;
  /** The app's stderr, for stdio connections (the client spawned the app). */
  readonly stderr?: () => string;
}

const open = new Set<{ close(): Promise<void> }>();

/** Closes every client still open (call in `afterEach`): over stdio this also ends the app. */
export async function closeClients(): Promise<void> {
  await Promise.allSettled([...open].map((client) => client.close()));
  open.clear();
}

/** Connects a client of `kind` to the app's streamable HTTP endpoint. */
export async function connectHttp(kind: ClientKind, url: string): Promise<Connected> {
  if (kind === 'v1') {
    const client = new V1Client({ name: 'e2e-v1', version: '1.0.0' });
    const transport = new V1HttpTransport(new URL(url));
    await client.connect(transport);
    open.add(client);
    return { client, protocolVersion: transport.protocolVersion };
  }
  const connected = await connect(url, { era: kind === 'v2 auto' ? 'auto' : '2025-11-25' });
  open.add(connected);
  return { client: connected.client, protocolVersion: connected.protocolVersion };
}

/** Starts the app over stdio as an MCP client would (command, args, env) and connects a client of `kind`. */
export async function connectStdio(
  kind: ClientKind,
  dataDir: string,
  extraArgs: readonly string[] = [],
): Promise<Connected> {
  const params = {
    command: process.execPath,
    args: [MAIN, '--data-dir', dataDir, ...extraArgs],
    env: baseEnv({ API_KEY: TEST_API_KEY }) as Record<string, string>,
    cwd: APP_DIR,
    stderr: 'pipe' as const,
  };
  let stderr = '';
  if (kind === 'v1') {
    const client = new V1Client({ name: 'e2e-v1', version: '1.0.0' });
    const transport = new V1StdioTransport(params);
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    await client.connect(transport);
    open.add(client);
    // The v1 client has no accessor for the negotiated version; it only ever speaks 2025-era revisions.
    return { client, protocolVersion: EXPECTED_VERSION.v1, stderr: () => stderr };
  }
  const client = v2Client(kind);
  const transport = new StdioClientTransport(params);
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  await client.connect(transport);
  open.add(client);
  return { client, protocolVersion: client.getNegotiatedProtocolVersion(), stderr: () => stderr };
}

function v2Client(kind: Exclude<ClientKind, 'v1'>): Client {
  return new Client(
    { name: `e2e-${kind.replace(' ', '-')}`, version: '1.0.0' },
    { versionNegotiation: { mode: kind === 'v2 auto' ? 'auto' : 'legacy' } },
  );
}

/** The structured result of a tool call that must have succeeded. */
export function structured<T>(result: unknown): T {
  const value = result as { isError?: boolean; structuredContent?: T; content?: unknown };
  expect(value.isError ?? false, JSON.stringify(value.content)).toBe(false);
  expect(value.structuredContent).toBeDefined();
  return value.structuredContent as T;
}

/** The text of the first content block of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content[0]?.text ?? '';
}

interface Summary {
  id: string;
  title: string;
  tags: string[];
  uri: string;
}

/**
 * Everything a user of the notes server does, through one client: discover the tools, resources and
 * prompt; add, find, read, summarize and delete a note. `label` keeps the notes of parallel runs apart.
 */
export async function runNotesScenario(client: AnyClient, label: string): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual([
    'add_note',
    'delete_note',
    'export_notes',
    'list_notes',
    'search_notes',
    'show_config',
  ]);

  const title = `Groceries (${label})`;
  const added = structured<{ note: Summary; uri: string }>(
    await client.callTool({
      name: 'add_note',
      arguments: { title, body: `milk and eggs for ${label}`, tags: ['home'] },
    }),
  );
  expect(added.note).toMatchObject({ title, tags: ['home'] });
  expect(added.uri).toBe(`notes://${added.note.id}`);

  const found = structured<{ notes: Summary[] }>(
    await client.callTool({ name: 'search_notes', arguments: { query: `EGGS FOR ${label}` } }),
  );
  expect(found.notes.map((note) => note.id)).toEqual([added.note.id]);

  const listed = structured<{ notes: Summary[] }>(
    await client.callTool({ name: 'list_notes', arguments: { tag: 'home' } }),
  );
  expect(listed.notes.map((note) => note.id)).toContain(added.note.id);

  const { resources } = await client.listResources();
  expect(resources.map((resource) => resource.uri)).toContain('notes://index');
  // The template lists every note under its title.
  expect(resources).toContainEqual(expect.objectContaining({ uri: added.uri, name: title }));
  const { resourceTemplates } = await client.listResourceTemplates();
  // The notes, and the skills extension's template for the server's skill files.
  expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
    'notes://{id}',
    'skill://{+path}',
  ]);

  const read = await client.readResource({ uri: added.uri });
  expect(read.contents[0]).toMatchObject({ uri: added.uri, mimeType: 'text/markdown' });
  expect((read.contents[0] as { text?: string }).text).toContain(`# ${title}`);
  const index = await client.readResource({ uri: 'notes://index' });
  expect((index.contents[0] as { text?: string }).text).toContain(added.note.id);

  const prompt = await client.getPrompt({ name: 'summarize_notes', arguments: { tag: 'home' } });
  expect(prompt.messages[0]?.role).toBe('user');
  expect(JSON.stringify(prompt.messages[0]?.content)).toContain(`milk and eggs for ${label}`);

  expect(textOf(await client.callTool({ name: 'delete_note', arguments: { id: added.note.id } }))).toBe(
    `deleted note ${added.note.id}`,
  );
  const again = (await client.callTool({ name: 'delete_note', arguments: { id: added.note.id } })) as {
    isError?: boolean;
  };
  expect(again.isError).toBe(true);
  expect(textOf(again)).toContain('no note with id');
  const after = structured<{ notes: Summary[] }>(
    await client.callTool({ name: 'list_notes', arguments: {} }),
  );
  expect(after.notes.map((note) => note.id)).not.toContain(added.note.id);
}
