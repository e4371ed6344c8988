import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'packaging',
    // One retry on a loaded 2-core machine: vitest reports a retried test, and a defect still fails twice.
    retry: 1,
    // …and prints what a retried test's failed attempt said (vitest alone prints nothing of it).
    reporters: ['default', '../../scripts/vitest-retried-reporter.mjs'],
    include: ['src/**/*.test.ts'],
    globalSetup: ['./src/global-setup.ts'],
    // Installs reach the registry and tsc compiles whole projects: generous, but bounded.
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
