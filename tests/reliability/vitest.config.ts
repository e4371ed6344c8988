import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'reliability',
    include: ['src/**/*.test.ts'],
    globalSetup: ['./src/global-setup.ts'],
    // Every test is bounded: servers run in child processes that are killed after each test.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
