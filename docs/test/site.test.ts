// Opens the built site (.vitepress/dist) in a real headless Chromium: every page loads without a console
// error, a failed request or an uncaught exception, and the local search finds what users look for.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_FLAGS } from './chromium.js';
import { ensureSite, SITE } from './site.js';
import { type StaticServer, serveStatic } from './static-server.js';

let server: StaticServer;
let browser: BrowserContext;
let profile: string;

beforeAll(async () => {
  ensureSite(); // turbo runs `build` before `test`
  server = await serveStatic(SITE);
  profile = await mkdtemp(join(tmpdir(), 'pier-docs-chromium-'));
  // A persistent context is how Playwright takes a fresh --user-data-dir of our own.
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
  });
}, 60_000);

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

/** Loads a page in a tab of its own and returns every problem the browser reported while it was open. */
async function visit(path: string): Promise<string[]> {
  const problems: string[] = [];
  const page = await browser.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error')
      problems.push(`console error: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) =>
    problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`),
  );
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  try {
    const response = await page.goto(server.origin + path, { waitUntil: 'load' });
    if (response?.status() !== 200) problems.push(`status ${response?.status()}`);
    // The page is hydrated once VitePress's app mounted: its content is there and links are live.
    await page.waitForSelector('#app .VPContent', { timeout: 10_000 });
    // VitePress prefetches the pages linked from this one: let that finish (no request for 500 ms).
    await page.waitForLoadState('networkidle', { timeout: 15_000 });
  } finally {
    // Closing the tab may cut a late prefetch short: only what failed while the page was open counts.
    page.removeAllListeners();
    await page.close();
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
        for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
          for (const problem of await visit(path)) problems.push(`${path}: ${problem}`);
        }
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
