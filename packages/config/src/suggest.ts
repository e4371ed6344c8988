/**
 * The known flag closest to a mistyped one, or undefined when none is close enough to be a good
 * guess. Matches ignore case, dashes and underscores first (`--maxRetries`, `--max_retries`), then
 * allow a few typos (`--max-retrys`).
 */
export function suggestFlag(unknown: string, known: readonly string[]): string | undefined {
  const wanted = normalizeFlag(unknown);
  const exact = known.find((flag) => normalizeFlag(flag) === wanted);
  if (exact !== undefined) return exact;
  const budget = Math.max(1, Math.min(3, Math.floor(wanted.length / 4)));
  let best: { flag: string; distance: number } | undefined;
  for (const flag of known) {
    const distance = editDistance(wanted, normalizeFlag(flag));
    if (distance <= budget && (best === undefined || distance < best.distance)) best = { flag, distance };
  }
  return best?.flag;
}

/** Lowercase, without dashes and underscores: `--Max_Retries` → `maxretries`. */
export function normalizeFlag(flag: string): string {
  return flag.toLowerCase().replace(/[-_]/g, '');
}

/** Edit distance counting a swap of two neighbouring letters as one edit (optimal string alignment). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return Number.POSITIVE_INFINITY;
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(a.length, b.length);
}
