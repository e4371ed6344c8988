// Re-renders RESULTS.md from the raw samples of a run, without measuring again (after a change to the
// report's wording): node dist/render.js [results/latest.json] [RESULTS.md]
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderReport } from './report.js';
import type { BenchResults } from './run.js';
import { keepSections } from './sections.js';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const [from = join(benchDir, 'results', 'latest.json'), to = join(benchDir, 'RESULTS.md')] =
  process.argv.slice(2);
writeFileSync(to, keepSections(renderReport(JSON.parse(readFileSync(from, 'utf8')) as BenchResults), to));
