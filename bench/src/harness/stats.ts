// Small statistics over the samples of repeated runs.

/** Median of the samples (mean of the middle two for an even count). */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The `q` quantile (0–1) of samples already sorted ascending: the sample at rank ⌊q·n⌋. */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** Smallest and largest sample. */
export function spread(samples: readonly number[]): { readonly min: number; readonly max: number } {
  return { min: Math.min(...samples), max: Math.max(...samples) };
}

/** Per-run ratios a[i] / b[i] of two series measured in the same runs. */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  return a.slice(0, Math.min(a.length, b.length)).map((value, i) => value / b[i]!);
}
