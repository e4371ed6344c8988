// Opens the built site (.vitepress/dist) in a real headless Chromium: every page loads without a console
// error, a failed request or an uncaught exception, and the local search finds what users look for.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_FLAGS, ensureChromium } from './chromium.js';
import { SITE } from './site.js';
import { type StaticServer, serveStatic } from './static-server.js';

let server: StaticServer;
let browser: BrowserContext;
let profile: string;

beforeAll(async () => {
  ensureChromium();
  server = await serveStatic(SITE);
  profile = await mkdtemp(join(tmpdir(), 'pier-docs-chromium-'));
  // A persistent context is how Playwright takes a fresh --user-data-dir of our own.
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

/** Every page of the site, as a path: `/guide/getting-started.html`. */
function pages(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'assets') walk(path);
      } else if (entry.name.endsWith('.html') && entry.name !== '404.html') {
        found.push(`/${relative(SITE, path).split(sep).join('/')}`);
      }
    }
  };
  walk(SITE);
  return found.sort();
}

/** Loads a page and returns every problem the browser reported. */
async function visit(page: Page, path: string): Promise<string[]> {
  const problems: string[] = [];
  const onConsole = (message: { type(): string; text(): string }) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  };
  const onPageError = (error: Error) => problems.push(`uncaught: ${error.message}`);
  const onFailed = (request: { url(): string; failure(): { errorText: string } | null }) =>
    problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`);
  const onResponse = (response: { url(): string; status(): number }) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  };
  page.on('console', onConsole);
  page.on('pageerror', onPageError);
  page.on('requestfailed', onFailed);
  page.on('response', onResponse);
  try {
    const response = await page.goto(server.origin + path, { waitUntil: 'load' });
    if (response?.status() !== 200) problems.push(`status ${response?.status()}`);
    // The page is hydrated once VitePress's app mounted: its content is there and links are live.
    await page.waitForSelector('#app .VPContent', { timeout: 10_000 });
  } finally {
    page.off('console', onConsole);
    page.off('pageerror', onPageError);
    page.off('requestfailed', onFailed);
    page.off('response', onResponse);
  }
  return problems;
}

describe('the built site in Chromium', () => {
  it('loads every page without a console error or a failed request', async () => {
    const paths = pages();
    expect(paths.length).toBeGreaterThan(20);
    expect(paths).toContain('/index.html');
    const problems: string[] = [];
    // Three tabs at a time: the pages are independent, and two cores serve them quickly.
    const queue = [...paths];
    await Promise.all(
      [0, 1, 2].map(async () => {
        const page = await browser.newPage();
        for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
          for (const problem of await visit(page, path)) problems.push(`${path}: ${problem}`);
        }
        await page.close();
      }),
    );
    expect(problems).toEqual([]);
  }, 120_000);

  it.each([
    ['elicit', '/concepts/'],
    ['httpTransport', '/packages/transport-http'],
    ['healthPlugin', '/packages/plugin-health'],
  ])(
    'search finds %s',
    async (term, expectedPage) => {
      const page = await browser.newPage();
      try {
        await page.goto(`${server.origin}/index.html`, { waitUntil: 'load' });
        // The search box opens from the nav bar's button, as a reader opens it.
        await page.click('.VPNavBarSearch button');
        const input = page.locator('.VPLocalSearchBox input');
        await input.fill(term);
        const results = page.locator('.VPLocalSearchBox .results li a');
        await results.first().waitFor({ timeout: 10_000 });
        const links = await results.evaluateAll((anchors) =>
          anchors.map((a) => a.getAttribute('href') ?? ''),
        );
        const titles = await page.locator('.VPLocalSearchBox .results li').allInnerTexts();
        expect(
          links.some((href) => href.includes(expectedPage)),
          `${term}: ${links.join(', ')}`,
        ).toBe(true);
        expect(titles.join('\n')).toMatch(new RegExp(term, 'i'));
      } finally {
        await page.close();
      }
    },
    30_000,
  );
});
