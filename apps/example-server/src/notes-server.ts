// The MCP server: tools to add, list, search and delete notes, a resource per note plus an index,
// a prompt that asks the model to summarize notes, a tool that reports the configuration, and a view
// (MCP Apps) that hosts show for list_notes: the notes board.
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configReport } from '@pier/config';
import {
  type CreateServerOptions,
  createServer,
  type ElicitationRequest,
  MCPServer,
  type PierServer,
  Prompt,
  Resource,
  type ResourceContext,
  Tool,
  type ToolContext,
} from '@pier/core';
import { authPlugin } from '@pier/plugin-auth';
import { type HealthCheckDefinition, healthPlugin } from '@pier/plugin-health';
import { z } from 'zod';
import type { AppConfig } from './config.js';
import { healthChecks } from './health.js';
import { type Note, type NotesStore, probeWritable } from './notes-store.js';
import { HEALTH_PATHS, SERVER_NAME, SERVER_VERSION } from './settings.js';

/** What the server is built from: the configuration and the opened store. */
export interface NotesServerDeps {
  readonly config: AppConfig;
  /** The notes: the file store (embedded default) or Redis (`REDIS_URL`). */
  readonly store: NotesStore;
  /** Where exports go, and what the critical `data-dir` check probes. */
  readonly dataDir: string;
  /** More health checks (the `redis` one in scale-out mode). */
  readonly checks?: readonly HealthCheckDefinition[];
}

/** What the class gets: the deps, and how to tell clients that the notes changed. */
interface NotesServerInit extends NotesServerDeps {
  readonly notesChanged: () => Promise<void>;
}

/** The URI of one note, served by the `note` resource template. */
export function noteUri(id: string): string {
  return `notes://${id}`;
}

/** The URI of the index of all notes. */
export const NOTES_INDEX_URI = 'notes://index';

/** The notes board (an MCP Apps view), which hosts show for `list_notes`. */
export const NOTES_BOARD_URI = 'ui://notes/board';

/** The board's one HTML file, which `scripts/build-view.mjs` writes beside the built server (dist/view/). */
export const NOTES_BOARD_FILE = fileURLToPath(new URL('./view/notes-board.html', import.meta.url));

/** A note, as the server's icon (an inline SVG: nothing for a client to fetch). */
const NOTE_ICON = {
  src: `data:image/svg+xml;base64,${Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#f5c542" d="M4 3h12l4 4v14H4z"/><path fill="#d9a514" d="M16 3v4h4z"/><path stroke="#7a5c00" stroke-width="1.5" d="M7 11h10M7 14h10M7 17h6"/></svg>',
  ).toString('base64')}`,
  mimeType: 'image/svg+xml',
  sizes: ['any'],
};

const noteFields = {
  title: z.string().trim().min(1).max(200).describe('Short title'),
  body: z.string().max(100_000).describe('The note itself (plain text or Markdown)'),
  tags: z.array(z.string().trim().min(1).max(50)).max(20).optional().describe('Labels to find it by'),
};

/**
 * Builds the server. Its health checks need the store and the configuration, so the health plugin is
 * made here and given to `createServer` (the class itself needs nothing known only at run time).
 */
export function createNotesServer(deps: NotesServerDeps, options: CreateServerOptions = {}): PierServer {
  const { dataDir } = deps;
  const health = healthPlugin({
    paths: HEALTH_PATHS,
    checks: [
      ...healthChecks({
        store: { dataDir, probeWritable: () => probeWritable(dataDir) },
        baseUrl: deps.config.baseUrl,
        timeoutMs: deps.config.timeout,
        logFailure: (message, fields) => server?.logger.child('health').warn(message, fields),
      }),
      ...(deps.checks ?? []),
    ],
  });
  const { authIssuer, authResource } = deps.config;
  const auth =
    authIssuer !== undefined && authResource !== undefined
      ? [
          authPlugin({
            resource: authResource,
            authorizationServers: [authIssuer],
            scopesSupported: [READ, WRITE],
            resourceName: 'Pier notes',
          }),
        ]
      : [];
  // The tools raise change events through the server's event bus, which exists once the server does.
  let server: PierServer | undefined;
  const notesChanged = async () => {
    if (server === undefined) return;
    server.events.publish({ kind: 'resources_list_changed' });
    await server.notifyResourceUpdated(NOTES_INDEX_URI);
  };
  server = createServer(NotesServer, { ...deps, notesChanged } satisfies NotesServerInit, {
    ...options,
    plugins: [health, ...auth, ...(options.plugins ?? [])],
    // One skill (skills/notes/SKILL.md, beside dist/) teaching a model how to use this server.
    skills: SKILLS_DIR,
  });
  return server;
}

/** The skills the server ships (the skills extension serves them as `skill://notes/…`). */
export const SKILLS_DIR = fileURLToPath(new URL('../skills', import.meta.url));

/** The scopes of the notes (checked only when auth is on: AUTH_ISSUER and AUTH_RESOURCE). */
const READ = 'notes:read';
const WRITE = 'notes:write';

/** What `delete_note` asks the user before deleting (a form with one checkbox). */
export const CONFIRM_DELETE_SCHEMA: Extract<
  ElicitationRequest,
  { requestedSchema: unknown }
>['requestedSchema'] = {
  type: 'object',
  properties: { confirm: { type: 'boolean', title: 'Delete this note' } },
  required: ['confirm'],
};

@MCPServer({
  name: SERVER_NAME,
  version: SERVER_VERSION,
  title: 'Pier notes',
  icons: [NOTE_ICON],
  instructions:
    'Keeps short notes. Use add_note to save one, search_notes or list_notes to find them, ' +
    `read ${noteUri('{id}')} for one note, and delete_note to remove one.`,
})
class NotesServer {
  readonly #config: AppConfig;
  readonly #store: NotesStore;
  readonly #dataDir: string;
  readonly #notesChanged: () => Promise<void>;

  constructor({ config, store, dataDir, notesChanged }: NotesServerInit) {
    this.#config = config;
    this.#store = store;
    this.#dataDir = dataDir;
    this.#notesChanged = notesChanged;
  }

  @Tool({ name: 'add_note', description: 'Save a new note', input: noteFields, scopes: [WRITE] })
  async addNote({ title, body, tags }: { title: string; body: string; tags?: string[] | undefined }) {
    const note = await this.#store.add({ title, body, ...(tags !== undefined && { tags }) });
    // Subscribers hear it on every replica: notes://index changed, and the resource list gained a note.
    await this.#notesChanged();
    return { note: summaryOf(note), uri: noteUri(note.id) };
  }

  @Tool({
    name: 'list_notes',
    description: 'List saved notes (titles, tags and URIs), oldest first; optionally only those with a tag',
    input: { tag: z.string().optional().describe('Only notes with exactly this tag') },
    annotations: { readOnlyHint: true },
    scopes: [READ],
    // Hosts of MCP Apps show the notes board with the result; the others get the same notes as JSON.
    _meta: { ui: { resourceUri: NOTES_BOARD_URI } },
  })
  async listNotes({ tag }: { tag?: string | undefined }) {
    const notes = (await this.#store.list()).filter((note) => tag === undefined || note.tags.includes(tag));
    return { notes: notes.map(summaryOf) };
  }

  @Tool({
    name: 'search_notes',
    description: 'Find notes whose title, body or tags contain the text (ignoring case)',
    input: { query: z.string().min(1).describe('Text to look for') },
    annotations: { readOnlyHint: true },
    scopes: [READ],
  })
  async searchNotes({ query }: { query: string }) {
    return {
      notes: (await this.#store.search(query)).map((note) => ({ ...summaryOf(note), body: note.body })),
    };
  }

  @Tool({
    name: 'delete_note',
    description: 'Delete a note by its id, after the user confirms (when the client can ask)',
    input: { id: z.string().min(1).describe('The id returned by add_note or list_notes') },
    annotations: { destructiveHint: true, idempotentHint: true },
    scopes: [WRITE],
  })
  async deleteNote({ id }: { id: string }, ctx: ToolContext) {
    const note = await this.#store.get(id);
    if (note === undefined) throw new Error(`no note with id "${id}"`);
    // Nothing is changed before the question: on 2026-07-28 this method runs again from the top with
    // the answer, so the only side effect (the delete) comes after it, once.
    if (ctx.clientSupports('elicitation')) {
      const answer = await ctx.elicit(
        {
          message: `Delete the note "${note.title}"? This cannot be undone.`,
          requestedSchema: CONFIRM_DELETE_SCHEMA,
        },
        { key: 'confirm_delete' },
      );
      if (answer.action !== 'accept' || answer.content?.confirm !== true) return `kept note ${id}`;
    }
    if (!(await this.#store.delete(id))) throw new Error(`no note with id "${id}"`);
    await this.#notesChanged();
    return `deleted note ${id}`;
  }

  @Tool({
    name: 'export_notes',
    description:
      'Write every note into one archive file (JSON Lines) in the data directory and answer its path; a task for clients of the tasks extension (poll it, cancel it)',
    task: 'optional',
    scopes: [READ],
  })
  async exportNotes(_args: Record<string, never>, ctx: ToolContext) {
    const notes = await this.#store.list();
    const file = join(this.#dataDir, exportName());
    const partial = `${file}.partial`;
    let done = false;
    // Exclusive: two exports never share a file, even if their names met.
    const handle = await open(partial, 'wx');
    try {
      for (const [index, note] of notes.entries()) {
        ctx.signal.throwIfAborted();
        // One durable line per note: a crash or a cancel never leaves a file that looks finished.
        await handle.write(`${JSON.stringify(note)}\n`);
        await handle.sync();
        await ctx.reportProgress(index + 1, {
          total: notes.length,
          message: `${index + 1} of ${notes.length} notes`,
        });
      }
      await handle.close();
      ctx.signal.throwIfAborted();
      await rename(partial, file);
      done = true;
      return { file, notes: notes.length };
    } finally {
      if (!done) {
        await handle.close().catch(() => undefined);
        await rm(partial, { force: true });
      }
    }
  }

  @Tool({
    name: 'show_config',
    description: 'Show the configuration in use and where each value came from (secrets masked)',
    annotations: { readOnlyHint: true },
  })
  async showConfig() {
    // configReport masks every secret; the raw key and database URL never leave the process.
    return { config: configReport(this.#config), dataDir: this.#dataDir };
  }

  @Resource({
    uri: NOTES_INDEX_URI,
    name: 'notes-index',
    title: 'All notes',
    description: 'Every note: id, title, tags, creation time and its own URI',
    mimeType: 'application/json',
    scopes: [READ],
    // add_note and delete_note announce every change (notifications/resources/updated).
    subscribable: true,
  })
  async index() {
    return { notes: (await this.#store.list()).map(summaryOf) };
  }

  @Resource({
    uri: NOTES_BOARD_URI,
    name: 'notes-board',
    title: 'Notes board',
    description: 'Lists the notes, adds one and deletes one (after the user confirms), through the host',
    // The MIME type is the extension's (text/html;profile=mcp-app) by default. The board reaches nothing
    // but the host, so it declares no CSP domains: hosts apply their most restrictive policy.
    _meta: { ui: { prefersBorder: true } },
  })
  async board() {
    return notesBoard();
  }

  @Resource({
    uriTemplate: noteUri('{id}'),
    name: 'note',
    title: 'One note',
    description: 'One note as Markdown',
    mimeType: 'text/markdown',
    scopes: [READ],
    complete: {
      id(this: NotesServer, prefix: string) {
        return completeId(this.#store, prefix);
      },
    },
    // Each note also shows in resources/list, under its title.
    async list(this: NotesServer) {
      return (await this.#store.list()).map((note) => ({ uri: noteUri(note.id), name: note.title }));
    },
  })
  async note(_uri: URL, { variables }: ResourceContext) {
    const id = String(variables.id);
    const note = await this.#store.get(id);
    if (note === undefined) throw new Error(`no note with id "${id}"`);
    return markdownOf(note);
  }

  @Prompt({
    name: 'summarize_notes',
    description: 'Ask the model for a summary of the notes, optionally only those with a tag',
    args: { tag: z.string().optional().describe('Only notes with exactly this tag') },
    scopes: [READ],
  })
  async summarize({ tag }: { tag?: string | undefined }) {
    const notes = (await this.#store.list()).filter((note) => tag === undefined || note.tags.includes(tag));
    if (notes.length === 0) return `There are no notes${tag === undefined ? '' : ` tagged "${tag}"`} yet.`;
    const text = notes.map(markdownOf).join('\n\n---\n\n');
    return `Summarize these ${notes.length} notes in a few bullet points, grouping related ones:\n\n${text}`;
  }
}

/**
 * A fresh archive name: `export-<time>-<random>.jsonl`. The time sorts them; the 48 random bits keep two
 * exports started in the same millisecond (on one replica or several sharing the directory) apart.
 */
export function exportName(now = new Date()): string {
  return `export-${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(6).toString('hex')}.jsonl`;
}

let boardHtml: Promise<string> | undefined;

/** The board's HTML, read once; a build without it says how to make it. */
function notesBoard(): Promise<string> {
  boardHtml ??= readFile(NOTES_BOARD_FILE, 'utf8').catch((error: NodeJS.ErrnoException) => {
    boardHtml = undefined;
    throw error.code === 'ENOENT'
      ? new Error('the notes board is not built: run `pnpm build` in apps/example-server')
      : error;
  });
  return boardHtml;
}

/** Note ids that start with what the user typed, for `completion/complete` on the template. */
async function completeId(store: NotesStore, prefix: string): Promise<string[]> {
  return (await store.list()).map((note) => note.id).filter((id) => id.startsWith(prefix));
}

function summaryOf(note: Note) {
  return {
    id: note.id,
    title: note.title,
    tags: [...note.tags],
    createdAt: note.createdAt,
    uri: noteUri(note.id),
  };
}

function markdownOf(note: Note): string {
  const tags = note.tags.length > 0 ? `\n\nTags: ${note.tags.join(', ')}` : '';
  return `# ${note.title}\n\n${note.body}${tags}\n\n_Created ${note.createdAt}_`;
}
