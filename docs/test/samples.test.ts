// Every code sample in the docs is a file under samples/. `build` compiles them (a sample that does not
// compile fails the build, and `typecheck` checks them too); this runs every whole program among them and
// compares what it prints with the .out file the page shows beside it.
// PIER_DOCS_UPDATE=1 rewrites the .out files from what the samples print now (then read the diff).
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SAMPLES = fileURLToPath(new URL('../samples', import.meta.url));
const COMPILED = fileURLToPath(new URL('../.samples', import.meta.url));

type Entry =
  | { readonly run: { readonly args?: string[]; readonly env?: Record<string, string> } }
  | { readonly vitest: true }
  | { readonly module: string }
  | { readonly 'not run': string };

const manifest = JSON.parse(readFileSync(join(SAMPLES, 'samples.json'), 'utf8')) as Record<string, Entry>;
delete manifest.$comment;

function sampleFiles(dir = SAMPLES): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sampleFiles(path);
    return entry.name.endsWith('.ts') ? [relative(SAMPLES, path).split(sep).join('/')] : [];
  });
}

const DOCS = fileURLToPath(new URL('..', import.meta.url));

/** The site's own Markdown pages (not the generated API reference). */
function pageFiles(dir = DOCS): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      return ['node_modules', 'api', 'samples', '.vitepress', '.samples', 'public'].includes(entry.name)
        ? []
        : pageFiles(path);
    }
    return entry.name.endsWith('.md') && entry.name !== 'README.md' ? [path] : [];
  });
}

describe('samples', () => {
  it('are the only TypeScript and JavaScript in the pages (a code block written inline is never compiled)', () => {
    const inline = pageFiles().flatMap((page) =>
      [...readFileSync(page, 'utf8').matchAll(/^\s*```(ts|tsx|js|mjs|cjs|typescript|javascript)\b/gm)].map(
        (match) =>
          `${relative(DOCS, page)}: a \`\`\`${match[1]} block; make it a file under samples/ and include it`,
      ),
    );
    expect(inline).toEqual([]);
    expect(pageFiles().length).toBeGreaterThan(20);
  });

  it('says, for every sample file, how it is checked', () => {
    expect(Object.keys(manifest).sort()).toEqual(sampleFiles().sort());
    for (const [file, entry] of Object.entries(manifest)) {
      if ('module' in entry)
        expect(manifest[entry.module], `${file} is imported by ${entry.module}`).toHaveProperty('run');
      if ('vitest' in entry) expect(file).toMatch(/\.test\.ts$/);
    }
  });

  const runnable = Object.entries(manifest).flatMap(([file, entry]) =>
    'run' in entry ? [[file, entry.run] as const] : [],
  );

  // Two programs at a time (maxConcurrency): each is mostly node starting up, and there are two cores.
  it.concurrent.each(runnable)(
    '%s prints what its page shows',
    async (file, options) => {
      const program = join(COMPILED, file.replace(/\.ts$/, '.js'));
      expect(existsSync(program), `${program}: run the docs build first`).toBe(true);
      const { stdout } = await run(process.execPath, [program, ...(options.args ?? [])], {
        cwd: COMPILED,
        timeout: 20_000,
        env: { PATH: process.env.PATH ?? '', PIER_LOG_LEVEL: 'error', ...options.env },
      });
      const expected = join(SAMPLES, file.replace(/\.ts$/, '.out'));
      if (process.env.PIER_DOCS_UPDATE === '1') writeFileSync(expected, stdout);
      expect(existsSync(expected), `${expected} is missing (PIER_DOCS_UPDATE=1 writes it)`).toBe(true);
      expect(stdout).toBe(readFileSync(expected, 'utf8'));
    },
    30_000,
  );
});
