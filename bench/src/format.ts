// How the report writes its figures: ratios with their spread, integers, milliseconds, KiB, MiB.
import { median, spread } from './harness/stats.js';

/** The median of per-run ratios with their spread, `2.11× (2.04–2.33)`; one run: `2.11×`. */
export function ratioText(ratios: readonly number[]): string {
  if (ratios.length === 0) return '';
  const { min, max } = spread(ratios);
  return ratios.length === 1
    ? `${fixed(2)(ratios[0]!)}×`
    : `${fixed(2)(median(ratios))}× (${fixed(2)(min)}–${fixed(2)(max)})`;
}

export function range(samples: readonly number[], format: (n: number) => string): string {
  const { min, max } = spread(samples);
  return samples.length === 1 ? '—' : `${format(min)}–${format(max)}`;
}

export function fixed(digits: number): (n: number) => string {
  return (n) => n.toFixed(digits);
}

export function int(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function ms(n: number): string {
  return `${n.toFixed(0)} ms`;
}

export function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
