import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'reliability',
    // One retry on a loaded 2-core machine: vitest reports a retried test, and a defect still fails twice.
    retry: 1,
    // …and prints what a retried test's failed attempt said (vitest alone prints nothing of it).
    reporters: ['default', '../../scripts/vitest-retried-reporter.mjs'],
    include: ['src/**/*.test.ts'],
    globalSetup: ['./src/global-setup.ts'],
    // Every test is bounded: servers run in child processes that are killed after each test.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
