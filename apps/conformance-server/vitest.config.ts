import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'conformance-server',
    // One retry on a loaded 2-core machine: vitest reports a retried test, and a defect still fails twice.
    retry: 1,
    include: ['src/**/*.test.ts'],
    globalSetup: ['./vitest.global-setup.ts'],
    // The suite and the app are child processes; two suites at once on a 2-core machine only slow both.
    fileParallelism: false,
  },
});
