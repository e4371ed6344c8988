import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'mounting',
    // One retry on a loaded 2-core machine: vitest reports a retried test, and a defect still fails twice.
    retry: 1,
    include: ['src/**/*.test.ts'],
    // Real servers on loopback ports, real SDK clients: bounded, never waited on without end.
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
