import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'cli',
    // One retry on a loaded 2-core machine: vitest reports a retried test, and a defect still fails twice.
    retry: 1,
    // …and prints what a retried test's failed attempt said (vitest alone prints nothing of it).
    reporters: ['default', '../../scripts/vitest-retried-reporter.mjs'],
    include: ['src/**/*.test.ts'],
    // Real child processes, sockets, builds and a type checker on a loaded 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
