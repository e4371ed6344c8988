import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'example-server',
    // One retry on a loaded 2-core machine: vitest reports a retried test, and a defect still fails twice.
    retry: 1,
    // …and prints what a retried test's failed attempt said (vitest alone prints nothing of it).
    reporters: ['default', '../../scripts/vitest-retried-reporter.mjs'],
    include: ['src/**/*.test.ts'],
    // The end-to-end tests run dist/main.js: rebuild it when the sources are newer.
    globalSetup: ['./vitest.global-setup.ts'],
  },
});
