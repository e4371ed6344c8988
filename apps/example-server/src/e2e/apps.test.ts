// The notes board (MCP Apps) in a real browser: headless Chromium opens a small host page built on the
// extension's AppBridge, whose SDK v2 client reaches the app over HTTP. The model's list_notes shows the
// board in a sandboxed frame; the board lists, adds and deletes notes through the host, and the host asks
// the user (the test) to confirm the delete. Negative control: the same host, with the tool's link to the
// view taken out of tools/list, shows no view.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { connect } from '@pier/testing';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_DIR, type AppProcess, cleanUp, startHttpApp } from './test-app.js';
import { type AppsHost, startAppsHost } from './test-apps-host.js';
import { ensureChromium, launchChromium } from './test-browser.js';

const TEST_TIMEOUT_MS = 60_000;
/** Where the screenshots go (ignored by git), printed by the test that takes them. */
const ARTIFACTS = join(APP_DIR, '.artifacts');

let app: AppProcess;
let host: AppsHost;
let browser: Browser;
/** A client of the test's own, to set up notes and check the server's state. */
let server: Client;

beforeAll(async () => {
  const chromium = ensureChromium();
  // Sessions, so that the 2025 host can be asked to confirm too (on its call's stream).
  app = await startHttpApp({ env: { SESSIONS: 'true' } });
  [host, browser, { client: server }] = await Promise.all([
    startAppsHost(app.url),
    launchChromium(chromium),
    connect(app.url, { era: 'auto' }),
  ]);
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await cleanUp();
});

describe('the notes board, shown by an MCP Apps host in Chromium', () => {
  it(
    'lists the notes, adds one and deletes one through the host (2026-07-28), the user confirming',
    async () => {
      const milk = await addNote('Buy milk', ['home']);
      const page = await openHost(host.url());
      expect((await hostState(page)).protocolVersion).toBe('2026-07-28');
      expect(await runTool(page, 'list_notes', {})).toBe('view');
      const board = viewOf(page);
      await expect.poll(() => titles(board)).toContain('Buy milk');
      // The board works under the extension's restrictive default CSP (it declares no domains): the
      // sandbox applies it, and the board's own requests would be refused.
      expect(await refusedFetch(page, app.origin)).toBe('connect-src');

      await board.getByLabel('Title', { exact: true }).fill('Call Ana');
      await board.getByLabel('Tags', { exact: true }).fill('phone, today');
      await board.getByLabel('Note', { exact: true }).fill('About the weekend');
      await board.getByRole('button', { name: 'Add' }).click();
      await expect.poll(() => board.getByRole('status').textContent()).toBe('Added “Call Ana”.');
      expect(await titles(board)).toEqual(expect.arrayContaining(['Buy milk', 'Call Ana']));
      expect(await serverTitles()).toEqual(expect.arrayContaining(['Buy milk', 'Call Ana']));
      const ana = (await serverNotes()).find((note) => note.title === 'Call Ana');
      expect(ana?.tags).toEqual(['phone', 'today']);
      mkdirSync(ARTIFACTS, { recursive: true });
      await shoot(page, 'notes-board.png');

      await board.getByRole('button', { name: 'Delete “Buy milk”' }).click();
      const dialog = page.locator('dialog#ask');
      await expect.poll(() => dialog.isVisible()).toBe(true);
      expect(await dialog.locator('p').textContent()).toBe(
        'Delete the note "Buy milk"? This cannot be undone.',
      );
      await shoot(page, 'notes-board-confirm.png');
      await dialog.getByLabel('Delete this note').check();
      await dialog.getByRole('button', { name: 'Submit' }).click();
      await expect.poll(() => board.getByRole('status').textContent()).toBe('Deleted the note.');
      expect(await titles(board)).not.toContain('Buy milk');
      expect(await titles(board)).toContain('Call Ana');
      expect((await serverNotes()).map((note) => note.id)).not.toContain(milk);
      await page.close();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a 2025-11-25 host: the question arrives as a request on the call’s stream, and declining keeps the note',
    async () => {
      const kept = await addNote('Water the plants', []);
      const page = await openHost(host.url({ era: '2025-11-25' }));
      expect((await hostState(page)).protocolVersion).toBe('2025-11-25');
      expect(await runTool(page, 'list_notes', {})).toBe('view');
      const board = viewOf(page);
      await expect.poll(() => titles(board)).toContain('Water the plants');
      await board.getByRole('button', { name: 'Delete “Water the plants”' }).click();
      const dialog = page.locator('dialog#ask');
      await expect.poll(() => dialog.isVisible()).toBe(true);
      await dialog.getByRole('button', { name: 'Decline' }).click();
      await expect.poll(() => board.getByRole('status').textContent()).toBe('Kept the note.');
      expect(await titles(board)).toContain('Water the plants');
      expect((await serverNotes()).map((note) => note.id)).toContain(kept);
      await page.close();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'negative control: with the link taken out of tools/list, the same host shows no view, only text',
    async () => {
      await addNote('Plain text only', []);
      const page = await openHost(host.url({ unlinked: true }));
      const { tools } = await hostState(page);
      expect(tools.find((tool) => tool.name === 'list_notes')?._meta?.ui).toBeUndefined();
      expect(await runTool(page, 'list_notes', {})).toBe('text');
      await expect.poll(() => page.locator('pre.result').textContent()).toContain('Plain text only');
      expect(await page.locator('iframe').count()).toBe(0);
      await page.close();
    },
    TEST_TIMEOUT_MS,
  );
});

/** What host.ts puts on `window`, as the test reads it inside the page. */
interface TestHost {
  readonly protocolVersion: string | undefined;
  readonly tools: readonly { name: string; _meta?: Record<string, unknown> }[];
  runTool(name: string, args: Record<string, unknown>): Promise<'view' | 'text'>;
}

/** The model calls a tool: the host shows its view, or its text. */
function runTool(page: Page, name: string, args: Record<string, unknown>): Promise<'view' | 'text'> {
  return page.evaluate(
    ([tool, input]) => (globalThis as unknown as { host: TestHost }).host.runTool(tool, input),
    [name, args] as const,
  );
}

/** The revision the host's client negotiated and the tools it was listed. */
function hostState(page: Page): Promise<Pick<TestHost, 'protocolVersion' | 'tools'>> {
  return page.evaluate(() => {
    const { protocolVersion, tools } = (globalThis as unknown as { host: TestHost }).host;
    return { protocolVersion, tools };
  });
}

async function openHost(url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 800, height: 480 } });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 }).catch((error: unknown) => {
    throw new Error(`the host page did not connect: ${String(error)} ${problems.join('; ')}`);
  });
  return page;
}

/** The CSP directive that refuses a `fetch` the view itself makes, if one does. */
async function refusedFetch(page: Page, url: string): Promise<string | undefined> {
  const view = page.frames().find((frame) => frame.parentFrame()?.parentFrame() === page.mainFrame());
  if (view === undefined) throw new Error('no view frame inside the sandbox proxy');
  // Runs in the view; this file is typed for Node, hence the casts.
  return view.evaluate(async (target) => {
    const doc = (globalThis as unknown as { document: EventTarget }).document;
    const refused = new Promise<string>((resolve) => {
      doc.addEventListener('securitypolicyviolation', (event) => {
        resolve((event as unknown as { violatedDirective: string }).violatedDirective);
      });
    });
    await fetch(target).catch(() => undefined);
    return Promise.race([
      refused,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2_000)),
    ]);
  }, url);
}

/** The view: the inner frame of the sandbox proxy the host framed. */
function viewOf(page: Page): FrameLocator {
  return page.frameLocator('iframe#view').frameLocator('iframe');
}

function titles(board: FrameLocator): Promise<string[]> {
  return board.locator('li .title').allTextContents();
}

async function shoot(page: Page, name: string): Promise<void> {
  const path = join(ARTIFACTS, name);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
}

async function addNote(title: string, tags: string[]): Promise<string> {
  const result = await server.callTool({ name: 'add_note', arguments: { title, body: `${title}.`, tags } });
  return (result.structuredContent as { note: { id: string } }).note.id;
}

async function serverNotes(): Promise<{ id: string; title: string; tags: string[] }[]> {
  const result = await server.callTool({ name: 'list_notes', arguments: {} });
  return (result.structuredContent as { notes: { id: string; title: string; tags: string[] }[] }).notes;
}

async function serverTitles(): Promise<string[]> {
  return (await serverNotes()).map((note) => note.title);
}
