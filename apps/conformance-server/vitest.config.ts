import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'conformance-server',
    // One retry on a loaded 2-core machine: vitest reports a retried test, and a defect still fails twice.
    retry: 1,
    // …and prints what a retried test's failed attempt said (vitest alone prints nothing of it).
    reporters: ['default', '../../scripts/vitest-retried-reporter.mjs'],
    include: ['src/**/*.test.ts'],
    globalSetup: ['./vitest.global-setup.ts'],
    // The suite and the app are child processes; two suites at once on a 2-core machine only slow both.
    fileParallelism: false,
  },
});
