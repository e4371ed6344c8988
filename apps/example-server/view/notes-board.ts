// The notes board: an MCP Apps view (ui://notes/board) that the host shows for `list_notes`. It renders the
// result the host hands it, and adds and deletes notes by calling the server's tools through the host —
// it has no network access of its own. Framework-free; bundled into one HTML file at build time.
import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
  PostMessageTransport,
} from '@modelcontextprotocol/ext-apps';

/** One note as `list_notes` describes it. */
interface NoteSummary {
  readonly id: string;
  readonly title: string;
  readonly tags: readonly string[];
  readonly createdAt: string;
}

/** What `tools/call` answers, as far as the board reads it. */
interface ToolResult {
  readonly content?: readonly { readonly type: string; readonly text?: string | undefined }[] | undefined;
  readonly structuredContent?: unknown;
  readonly isError?: boolean | undefined;
}

const app = new App({ name: 'Pier notes board', version: '1.0.0' });
const list = element<HTMLUListElement>('#notes');
const count = element<HTMLElement>('#count');
const status = element<HTMLElement>('#status');
const form = element<HTMLFormElement>('#add');
/** The tag the model listed by (`list_notes({ tag })`): the board keeps showing only those. */
let tag: string | undefined;

// The host first sends the arguments the model called `list_notes` with, then its result.
app.addEventListener('toolinput', ({ arguments: args }) => {
  tag = typeof args?.tag === 'string' ? args.tag : undefined;
});
app.addEventListener('toolresult', (result) => show(result));
app.addEventListener('hostcontextchanged', theme);

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const title = String(data.get('title') ?? '').trim();
  const tags = String(data.get('tags') ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
  void busy(async () => {
    await call('add_note', { title, body: String(data.get('body') ?? ''), ...(tags.length > 0 && { tags }) });
    form.reset();
    await refresh();
    say(`Added “${title}”.`);
  });
});

list.addEventListener('click', (event) => {
  const button = (event.target as Element).closest<HTMLButtonElement>('button[data-id]');
  if (button === null) return;
  // The server asks the user to confirm (elicitation); the host shows the question and answers it.
  void busy(async () => {
    const result = await call('delete_note', { id: button.dataset.id });
    await refresh();
    say(textOf(result).startsWith('kept') ? 'Kept the note.' : 'Deleted the note.');
  });
});

await app.connect(new PostMessageTransport(window.parent, window.parent));
theme(app.getHostContext() ?? {});

async function refresh(): Promise<void> {
  show(await call('list_notes', tag === undefined ? {} : { tag }));
}

/** Calls a server tool through the host; a tool error becomes an exception with its text. */
async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const result: ToolResult = await app.callServerTool({ name, arguments: args });
  if (result.isError === true) throw new Error(textOf(result) || `${name} failed`);
  return result;
}

function show(result: ToolResult): void {
  const notes = (result.structuredContent as { notes?: readonly NoteSummary[] } | undefined)?.notes;
  if (notes === undefined) return;
  count.textContent = `${notes.length} ${notes.length === 1 ? 'note' : 'notes'}${tag === undefined ? '' : ` tagged “${tag}”`}`;
  list.replaceChildren(...(notes.length === 0 ? [emptyItem()] : notes.map(noteItem)));
}

function noteItem(note: NoteSummary): HTMLLIElement {
  const item = document.createElement('li');
  item.dataset.id = note.id;
  const text = item.appendChild(document.createElement('div'));
  text.className = 'text';
  const title = text.appendChild(document.createElement('div'));
  title.className = 'title';
  title.textContent = note.title;
  const meta = text.appendChild(document.createElement('div'));
  meta.className = 'muted';
  for (const name of note.tags) {
    const chip = meta.appendChild(document.createElement('span'));
    chip.className = 'tag';
    chip.textContent = name;
  }
  meta.append(new Date(note.createdAt).toLocaleString());
  const remove = item.appendChild(document.createElement('button'));
  remove.className = 'delete';
  remove.type = 'button';
  remove.dataset.id = note.id;
  remove.textContent = 'Delete';
  remove.setAttribute('aria-label', `Delete “${note.title}”`);
  return item;
}

function emptyItem(): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'empty muted';
  item.textContent = 'No notes yet: add one below.';
  return item;
}

/** Runs one action at a time, with the controls disabled, and shows its error if it fails. */
async function busy(action: () => Promise<void>): Promise<void> {
  enable(false);
  try {
    await action();
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
  } finally {
    enable(true);
  }
}

function enable(on: boolean): void {
  for (const control of document.querySelectorAll<HTMLButtonElement | HTMLInputElement>(
    'button, input, textarea',
  )) {
    control.disabled = !on;
  }
}

function say(message: string): void {
  status.textContent = message;
}

function textOf(result: ToolResult): string {
  return result.content?.find((block) => block.type === 'text')?.text ?? '';
}

function theme(context: McpUiHostContext): void {
  if (context.theme !== undefined) applyDocumentTheme(context.theme);
  if (context.styles?.variables !== undefined) applyHostStyleVariables(context.styles.variables);
}

function element<T extends Element>(selector: string): T {
  const found = document.querySelector<T>(selector);
  if (found === null) throw new Error(`notes board: ${selector} is missing from the page`);
  return found;
}
