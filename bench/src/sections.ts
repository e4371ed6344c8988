// RESULTS.md holds sections written by other scripts than the full run (create-pier.ts) or by hand (the
// auth and scale-out measurements), each between `<!-- name:start -->` and `<!-- name:end -->`: a rewrite
// by the full run or by render.ts keeps them as they were, in their order.
import { existsSync, readFileSync } from 'node:fs';

export const CREATE_PIER_START = '<!-- create-pier:start -->';
export const CREATE_PIER_END = '<!-- create-pier:end -->';

const SECTION = /<!-- ([\w-]+):start -->[\s\S]*?<!-- \1:end -->/g;

/** `report` followed by every marked section that `file` holds now. */
export function keepSections(report: string, file: string): string {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const kept = [...current.matchAll(SECTION)].map((match) => match[0]);
  if (kept.length === 0) return report;
  return `${report.trimEnd()}\n\n${kept.join('\n\n')}\n`;
}
