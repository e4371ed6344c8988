// Re-renders RESULTS.md from the raw samples of a run, without measuring again (after a change to the
// report's wording or the charts): node dist/render.js [results/latest.json] [RESULTS.md]; the charts go to
// charts/ beside the report.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chartData, writeCharts } from './charts.js';
import { renderReport } from './report.js';
import type { BenchResults } from './results.js';
import { keepSections } from './sections.js';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const [from = join(benchDir, 'results', 'latest.json'), to = join(benchDir, 'RESULTS.md')] =
  process.argv.slice(2);
const results = JSON.parse(readFileSync(from, 'utf8')) as BenchResults;
writeFileSync(to, keepSections(renderReport(results), to));
writeCharts(chartData(results), join(dirname(to), 'charts'));
