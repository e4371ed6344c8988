// RESULTS.md holds sections written by other scripts than the full run (create-pier.ts): a rewrite by
// the full run or by render.ts keeps them as they were.
import { existsSync, readFileSync } from 'node:fs';

export const CREATE_PIER_START = '<!-- create-pier:start -->';
export const CREATE_PIER_END = '<!-- create-pier:end -->';

/** `report` followed by the create-pier section that `file` holds now, if any. */
export function keepSections(report: string, file: string): string {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const at = current.indexOf(CREATE_PIER_START);
  const end = current.indexOf(CREATE_PIER_END);
  if (at < 0 || end < at) return report;
  return `${report.trimEnd()}\n\n${current.slice(at, end + CREATE_PIER_END.length)}\n`;
}
