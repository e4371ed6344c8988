import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'docs',
    // One retry on a loaded 2-core machine: vitest reports a retried test, and a defect still fails twice.
    retry: 1,
    // …and prints what a retried test's failed attempt said (vitest alone prints nothing of it).
    reporters: ['default', '../scripts/vitest-retried-reporter.mjs'],
    // The sample test files are real tests: they run here as they would in a user's project.
    include: [
      'test/**/*.test.ts',
      'samples/getting-started/server.test.ts',
      'samples/testing/weather.test.ts',
      'samples/testing/notifications.test.ts',
    ],
    globalSetup: ['./test/global-setup.ts'],
    // The browser test and the sample runs each use both cores; one file at a time.
    fileParallelism: false,
    maxConcurrency: 2,
  },
});
