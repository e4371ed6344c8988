// Redraws the SVG charts from the figures committed beside them, without the raw samples of a run:
// node dist/draw-charts.js [charts/data.json]
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ChartData, writeCharts } from './charts.js';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const [from = join(benchDir, 'charts', 'data.json')] = process.argv.slice(2);
writeCharts(JSON.parse(readFileSync(from, 'utf8')) as ChartData, dirname(from));
