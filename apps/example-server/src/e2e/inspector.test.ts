// The MCP Inspector's command-line mode against the app over streamable HTTP.
//
// The Inspector (2.x) declares `engines.node >= 22.19`. The repository installs with pnpm on Node 20
// under `engine-strict=true` (.npmrc), so it cannot be a devDependency of this app: the install would
// fail on Node 20. Instead the test fetches the pinned version once with npx *running on Node 24* (the
// registry's `node` package, as the root `test:node24` script does), where its engine check passes,
// then runs its bin with that Node 24 directly. npx caches it, so only the first run downloads.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APP_DIR, cleanUp, startHttpApp, tempDir } from './test-app.js';

const run = promisify(execFile);
const INSPECTOR_VERSION = '2.12.0';
const INSTALL_TIMEOUT_MS = 180_000;
const RUN_TIMEOUT_MS = 30_000;

let inspector: { node: string; bin: string };

beforeAll(async () => {
  const { stdout } = await run(
    'npx',
    [
      '-y',
      '-p',
      'node@24',
      '--',
      'npx',
      '-y',
      `--package=@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`,
      '--',
      'node',
      '-p',
      'JSON.stringify([process.execPath, process.env.PATH])',
    ],
    { cwd: APP_DIR, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 1 << 20 },
  );
  const [node, path] = JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as [string, string];
  const bin = path
    .split(':')
    .map((dir) => join(dir, 'mcp-inspector'))
    .find((candidate) => existsSync(candidate));
  if (bin === undefined) throw new Error(`npx installed no mcp-inspector bin (PATH: ${path})`);
  inspector = { node, bin };
}, INSTALL_TIMEOUT_MS);

afterEach(cleanUp);

/** Runs `mcp-inspector --cli <url> --transport http …` under Node 24 and parses its JSON output. */
async function inspect(url: string, args: readonly string[]): Promise<{ result: Record<string, unknown> }> {
  // Its own HOME: the Inspector keeps a catalog and stored secrets under ~/.mcp-inspector.
  const home = await tempDir('pier-notes-inspector-');
  const { stdout } = await run(
    inspector.node,
    [inspector.bin, '--cli', url, '--transport', 'http', '--format', 'json', ...args],
    { env: { PATH: process.env.PATH, HOME: home }, timeout: RUN_TIMEOUT_MS, maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout) as { result: Record<string, unknown> };
}

describe(`MCP Inspector ${INSPECTOR_VERSION} --cli`, () => {
  it(
    'lists the tools and calls one, in the 2025 era (its default) and the 2026 era',
    async () => {
      const app = await startHttpApp();

      const listed = await inspect(app.url, ['--method', 'tools/list']);
      const tools = (listed.result.tools as { name: string }[]).map((tool) => tool.name).sort();
      expect(tools).toEqual([
        'add_note',
        'delete_note',
        'export_notes',
        'list_notes',
        'search_notes',
        'show_config',
      ]);

      const added = await inspect(app.url, [
        '--protocol-era',
        'modern',
        '--method',
        'tools/call',
        '--tool-name',
        'add_note',
        '--tool-arg',
        'title=From the Inspector',
        'body=hello',
      ]);
      expect(added.result.structuredContent).toMatchObject({
        note: { title: 'From the Inspector', tags: [] },
      });

      const found = await inspect(app.url, [
        '--method',
        'tools/call',
        '--tool-name',
        'search_notes',
        '--tool-arg',
        'query=inspector',
      ]);
      expect(found.result.structuredContent).toMatchObject({ notes: [{ title: 'From the Inspector' }] });
    },
    RUN_TIMEOUT_MS * 2,
  );
});
