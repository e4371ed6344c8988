// The performance page's charts are the SVGs `pnpm bench` draws beside bench/RESULTS.md (bench/charts/,
// committed with the figures they show): copied into the site's public folder, so that building the docs
// needs no benchmark run.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const docs = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(docs, '..', 'bench', 'charts');
const to = join(docs, 'public', 'charts');
rmSync(to, { recursive: true, force: true });
mkdirSync(to, { recursive: true });
const charts = readdirSync(from).filter((file) => file.endsWith('.svg'));
if (charts.length === 0) {
  console.error(
    `docs: no charts in ${from}; \`node dist/draw-charts.js\` in bench/ draws them from charts/data.json`,
  );
  process.exit(1);
}
for (const file of charts) copyFileSync(join(from, file), join(to, file));
