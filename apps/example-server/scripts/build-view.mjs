// `node scripts/build-view.mjs`: bundles the notes board (view/notes-board.ts and what it imports, the MCP
// Apps `App` class among them) with esbuild and inlines it into view/notes-board.html, written to
// dist/view/notes-board.html: one self-contained file, as hosts load a view (they fetch its HTML with
// resources/read and give it no other origin to load scripts from).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PLACEHOLDER = /<!-- notes-board\.ts[^>]*-->/;

const result = await build({
  entryPoints: [join(root, 'view', 'notes-board.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  write: false,
  logLevel: 'warning',
});
const script = result.outputFiles[0].text.replaceAll('</script', '<\\/script');
const page = readFileSync(join(root, 'view', 'notes-board.html'), 'utf8');
if (!PLACEHOLDER.test(page))
  throw new Error('view/notes-board.html: the script placeholder comment is missing');
const out = join(root, 'dist', 'view', 'notes-board.html');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  page.replace(PLACEHOLDER, () => `<script type="module">${script}</script>`),
);
console.error(`built ${out} (${Math.round(Buffer.byteLength(readFileSync(out)) / 1024)} KiB)`);
