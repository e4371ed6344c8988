import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'mounting',
    // One retry on a loaded 2-core machine: vitest reports a retried test, and a defect still fails twice.
    retry: 1,
    // …and prints what a retried test's failed attempt said (vitest alone prints nothing of it).
    reporters: ['default', '../../scripts/vitest-retried-reporter.mjs'],
    include: ['src/**/*.test.ts'],
    // Real servers on loopback ports, real SDK clients: bounded, never waited on without end.
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
